"""pocketsphinx decoders for ``agent.stt.sphinx``: how one is built, settled, restarted and pooled.

    pool = DecoderPool(phrases=DEMO_PHRASES)      # or DecoderPool() for the general model
    decoder = pool.take(NARROWBAND_CMN_INIT)      # as a new decoder hears (blocking: off the loop)
    ...
    pool.give_back(NARROWBAND_CMN_INIT, decoder)  # between utterances, for the next call

The same audio must give the same words on every decoder, new or reused, in every process: that
is what ``build_decoder`` (settled on silence), ``restart`` (the front end and the cepstral mean
as a new decoder's) and ``in_grammar`` (the lattice read by score, never by its order) keep true.
The settings for phone audio (``GENERAL_MODEL_OPTIONS``, the starting means) and their figures are
here too (``benchmarks/stt_bench.py``). Synchronous; no I/O but pocketsphinx's model files.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Collection, Iterable, Sequence
from typing import Any

#: the decoder's starting cepstral mean. Live decoding normalizes with a running mean, which starts
#: at pocketsphinx's default (40,3,-1) and then needs several utterances to reach real speech; this
#: rounded mean of clean speech makes the first utterance of a call decode like later ones. Phone
#: audio (8 kHz, upsampled) has no energy above 4 kHz, so its mean is far from wideband speech's:
#: the narrowband one is where the running mean settles over the tuned callers of
#: ``benchmarks/v2v_sets.py`` heard twice through the mu-law line (WER 0.38 -> 0.31 on them, and
#: 0.66 -> 0.65 on the wide set, which it was not learned on: ``benchmarks/stt_bench.py``). The
#: mean then goes on adapting through the call (restarting it at every utterance costs 0.1 WER).
WIDEBAND_CMN_INIT = "54,6,1,6,-7,0,-3,13,-3,2,-2,2,0"
NARROWBAND_CMN_INIT = "46,34,-39,38,-23,-4,17,-14,23,-13,2,10,-12"
#: the general model's search (``benchmarks/stt_bench.py`` has the figures):
#:
#: * one pass: pocketsphinx's second (flat) pass re-searches the whole utterance at ``end_utt``,
#:   which is what the caller waits for after the VAD's stop: 53/96 ms p50/p90 on the tuned
#:   callers, 173/628 ms on the wide ones, under 30 ms without it, for 0.01-0.02 more WER;
#: * at most 5000 HMMs and 10 word exits a frame: noisy phone audio matches nothing well, so the
#:   beams alone let the search grow to 0.73 s of CPU per second of audio on the wide callers, and
#:   a decoder that falls behind real time makes the caller wait for its backlog at the turn's end
#:   (280 ms in ``v2v_bench``). Bounded: 0.2-0.25 s of CPU per second, and WER 0.33 -> 0.32 on the
#:   tuned callers it was chosen on (0.66 -> 0.63 on the wide ones).
GENERAL_MODEL_OPTIONS: dict[str, Any] = {"fwdflat": False, "maxhmmpf": 5000, "maxwpf": 10}
#: lattice paths read when a closed grammar's final hypothesis is a fragment (see ``in_grammar``)
NBEST = 10

_WORD = re.compile(r"[a-z]+(?:'[a-z]+)*")


def normalize_phrase(phrase: str) -> str:
    """Lowercase words without punctuation, as the grammar and the transcripts spell them."""
    return " ".join(_WORD.findall(phrase.lower()))


def grammar_of(phrases: Sequence[str] | None) -> frozenset[str] | None:
    """The normalized phrases of a closed grammar; None for none (the general model)."""
    grammar = frozenset(normalize_phrase(p) for p in phrases or () if normalize_phrase(p))
    return grammar or None


def build_decoder(phrases: Sequence[str] | None = None, *, cmn_init: str = WIDEBAND_CMN_INIT) -> Any:
    """A pocketsphinx decoder: the general language model, or a closed grammar of ``phrases``.

    Raises ValueError if a phrase holds a word missing from pocketsphinx's dictionary.
    """
    from pocketsphinx import Decoder  # imported here: loading the module is slow-ish and optional

    if not phrases:
        return _settled(Decoder(logfn="/dev/null", cmninit=cmn_init, **GENERAL_MODEL_OPTIONS), cmn_init)
    grammar = sorted(grammar_of(phrases) or ())
    decoder = Decoder(lm=None, logfn="/dev/null", cmninit=cmn_init)
    missing = sorted({w for p in grammar for w in p.split() if decoder.lookup_word(w) is None})
    if missing:
        raise ValueError(f"not in pocketsphinx's dictionary: {', '.join(missing)}")
    jsgf = "#JSGF V1.0;\ngrammar agent;\npublic <utterance> = " + " | ".join(grammar) + ";\n"
    decoder.add_jsgf_string("agent", jsgf)
    decoder.activate_search("agent")
    return _settled(decoder, cmn_init)


def _settled(decoder: Any, cmn_init: str) -> Any:
    """``decoder`` after one utterance of silence, then restarted.

    The one-pass search sets part of itself up in the first utterance it decodes: a new decoder
    scored "uh huh" 0.730 and every later utterance of it 0.718. Spending that first utterance on
    100 ms of silence here makes a new decoder and a reused one the same from the first caller on.
    """
    decoder.start_utt()
    decoder.process_raw(bytes(3200), False, True)
    decoder.end_utt()
    restart(decoder, cmn_init)
    return decoder


def restart(decoder: Any, cmn_init: str) -> None:
    """Put ``decoder``'s feature pipeline back as a new decoder's: it then decodes any audio exactly
    as a fresh one would (the same words and scores).

    Live decoding adapts its cepstral mean as it goes, and ``set_cmn`` alone replaces the mean but
    not the running sums it is updated from, so a decoder that heard one call went on hearing the
    next one differently. ``reinit_feat`` rebuilds the front end and the normalisation (0.1 ms);
    past its first utterance (see ``_settled``) the search keeps nothing between utterances.
    """
    decoder.reinit_feat()
    decoder.set_cmn(cmn_init)


DecoderFactory = Callable[[str], Any]


class DecoderPool:
    """Idle decoders of one configuration, kept for the next call (at most ``max_idle`` of them).

    ``DecoderPool(phrases=...)`` builds closed-grammar decoders (``build_decoder``); a ``factory``
    of one's own builds them instead, and ``phrases`` then names the grammar it searches.

    ``take`` and ``give_back`` may run on any thread. A decoder is taken by one service at a time
    and given back only between utterances, so a reused decoder always starts clean.
    """

    def __init__(
        self,
        factory: DecoderFactory | None = None,
        *,
        phrases: Sequence[str] | None = None,
        max_idle: int = 4,
    ) -> None:
        if max_idle < 0:
            raise ValueError("max_idle must not be negative")
        self._factory: DecoderFactory = factory or (lambda cmn: build_decoder(phrases, cmn_init=cmn))
        #: the closed grammar its decoders search (None: the general language model)
        self.grammar: frozenset[str] | None = grammar_of(phrases)
        self._max_idle = max_idle
        self._idle: list[tuple[str, Any]] = []
        self._lock = threading.Lock()
        #: decoders built, for tests and logs (a pool that works builds about one per concurrent call)
        self.built = 0

    @property
    def idle(self) -> int:
        with self._lock:
            return len(self._idle)

    def take(self, cmn_init: str) -> Any:
        """An idle decoder with ``cmn_init`` restarted, or a new one (blocking: call off the loop)."""
        with self._lock:
            match = next((i for i, (cmn, _) in enumerate(self._idle) if cmn == cmn_init), None)
            if match is None:
                self.built += 1
                decoder = None
            else:
                decoder = self._idle.pop(match)[1]
        if decoder is None:
            return self._factory(cmn_init)
        restart(decoder, cmn_init)  # the last caller's line and voice must not bias the next call
        return decoder

    def give_back(self, cmn_init: str, decoder: Any) -> None:
        """Keep ``decoder`` (between utterances) for a later call, unless the pool is full."""
        with self._lock:
            if len(self._idle) < self._max_idle:
                self._idle.append((cmn_init, decoder))


def in_grammar(
    final: str, alternatives: Iterable[tuple[str, float]], interim: str, grammar: Collection[str]
) -> str:
    """The transcript of a closed-grammar utterance whose final hypothesis is not a phrase of it.

    A search that ends off the grammar's final states backtraces a fragment: a short utterance
    cut by the VAD a frame early or late reads "the", "hi" or "can" where the running hypothesis
    said "uh huh" all along, and a backchannel read that way interrupts the bot. So the last
    ``interim`` wins if it is a whole phrase, then the best-scored whole phrase of the lattice's
    ``alternatives`` (text, score), and only then the fragment itself (speech outside the grammar).

    The lattice's n-best is never read in the order pocketsphinx lists it: that order (and which
    paths make the list) changes with the process's memory layout, so the same audio gave "uh
    huh" in one process and "yeah" in the next. Scores do not; ties go to the first in text order.
    """
    if interim in grammar:
        return interim
    whole = [(-score, text) for text, score in alternatives if text in grammar]
    return min(whole)[1] if whole else final


def clean_hypothesis(text: str) -> str:
    """Drop pocketsphinx's filler tokens (``<sil>``, ``[noise]``, ``(2)`` alternates)."""
    words = [re.sub(r"\(\d+\)$", "", w) for w in text.split()]
    return " ".join(w for w in words if w and not w.startswith(("<", "[")))


__all__ = [
    "GENERAL_MODEL_OPTIONS",
    "NARROWBAND_CMN_INIT",
    "NBEST",
    "WIDEBAND_CMN_INIT",
    "DecoderFactory",
    "DecoderPool",
    "build_decoder",
    "clean_hypothesis",
    "grammar_of",
    "in_grammar",
    "normalize_phrase",
    "restart",
]
