"""``PocketsphinxSTTService``: offline speech recognition for the voice agent, segmented by the VAD.

    stt = PocketsphinxSTTService()                       # pocketsphinx's general English model
    stt = PocketsphinxSTTService(phrases=DEMO_PHRASES)   # a closed grammar: robust for a demo script

The English model ships inside the pocketsphinx wheel: nothing is downloaded. Each final transcript
carries its words' lattice posteriors (``frame.result``: an ``agent.turn_taking.confidence.Heard``),
so the turn-taking weighs the words only as far as the recognizer trusts them. The service must sit
after a VAD (``pipecat.processors.audio.vad_processor.VADProcessor``) so it sees
``VADUserStartedSpeakingFrame`` / ``VADUserStoppedSpeakingFrame`` in order with the audio.

Audio is decoded while it arrives: every input frame is resampled to 16 kHz (stateful, in float) and
fed to the decoder during the utterance, so at ``VADUserStoppedSpeakingFrame`` only ``end_utt``
is left and the ``TranscriptionFrame`` (``finalized=True``) goes out right before the stop frame.
The VAD confirms speech only ``start_secs`` after it began, so the last ``preroll_s`` of audio is
kept and fed first. An ``InterimTranscriptionFrame`` is pushed when the partial hypothesis changes
(at most every ``interim_every_s``: 0.1 s, so that the turn-taking, which answers speculatively
from it the moment the caller goes quiet, reads words at most that old).
With a closed grammar the final transcript is always one of its phrases when the search found
one: a final hypothesis that is only a fragment (the search ended off the grammar's final
states, which a short backchannel cut a frame early by the VAD often does) gives way to the
running hypothesis, or to the best-scored whole phrase of the lattice (``in_grammar``). An utterance
that never rose above ``SILENCE_PEAK`` (the VAD opened on silence) has no transcript, whatever
path the search found through it.

Decoding runs on one worker thread per service (pocketsphinx decoders are not thread-safe, and
feeding them in order matters), never on the event loop. A decoder costs about 60 MB (the general
model) and 0.4 s to build, so calls share them through a ``DecoderPool``: a finished call gives
its decoder back and the next call takes it (``restart``: its front end and cepstral mean as a
new decoder's, so one caller's audio never changes the next caller's words), instead of every
call allocating a model that the allocator seldom returns to the system. This module never downloads
anything and never swallows ``CancelledError``.
"""

from __future__ import annotations

import asyncio
import re
import threading
from collections import deque
from collections.abc import AsyncGenerator, Callable, Collection, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from itertools import islice
from typing import Any, TypeVar

from loguru import logger
from pipecat.frames.frames import (
    CancelFrame,
    EndFrame,
    Frame,
    InterimTranscriptionFrame,
    StartFrame,
    TranscriptionFrame,
    VADUserStartedSpeakingFrame,
    VADUserStoppedSpeakingFrame,
)
from pipecat.processors.frame_processor import FrameDirection
from pipecat.services.settings import STTSettings
from pipecat.services.stt_service import STTService
from pipecat.transcriptions.language import Language
from pipecat.utils.time import time_now_iso8601

from agent.turn_taking.confidence import Heard
from tts_service.dsp import float_to_pcm16, pcm16_peak, pcm16_to_float
from tts_service.engine.resample import StreamResampler

#: pocketsphinx's bundled English model is trained on 16 kHz speech
DECODER_SAMPLE_RATE = 16000
#: audio kept from before the VAD confirmed speech (its start_secs is 0.2 s by default)
DEFAULT_PREROLL_S = 0.5
#: how often the running hypothesis is read and pushed, if it changed
INTERIM_EVERY_S = 0.1
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
#: an utterance whose loudest sample stays below this (about -54 dBFS) is silence, whatever the
#: VAD said: no words, even where the search would find a path through it
SILENCE_PEAK = 64
#: measured end-of-speech-to-transcript p99 on a laptop CPU: only ``end_utt`` is left to do
TTFS_P99_S = 0.1

_WORD = re.compile(r"[a-z]+(?:'[a-z]+)*")
_T = TypeVar("_T")


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


class PocketsphinxSTTService(STTService):
    """Offline STT over pocketsphinx, one utterance per VAD speech segment (see the module doc)."""

    def __init__(
        self,
        *,
        phrases: Sequence[str] | None = None,
        preroll_s: float = DEFAULT_PREROLL_S,
        interim_every_s: float = INTERIM_EVERY_S,
        decoder_factory: DecoderFactory | None = None,
        decoder_pool: DecoderPool | None = None,
        **kwargs: Any,
    ) -> None:
        kwargs.setdefault("ttfs_p99_latency", TTFS_P99_S)
        kwargs.setdefault("settings", STTSettings(model="pocketsphinx-en-us", language=Language.EN))
        super().__init__(**kwargs)
        self._phrases = tuple(phrases) if phrases else None
        if decoder_pool is not None and (phrases or decoder_factory):
            raise ValueError("give either decoder_pool or phrases/decoder_factory: the pool builds its own")
        #: where this call's decoder comes from and goes back to (a pool of its own keeps none)
        self._pool = decoder_pool or DecoderPool(decoder_factory, phrases=self._phrases, max_idle=0)
        self._cmn_init = WIDEBAND_CMN_INIT
        self._preroll_s = preroll_s
        self._interim_every_s = interim_every_s
        self._executor: ThreadPoolExecutor | None = None
        self._decoder: Any = None
        self._resampler: StreamResampler | None = None
        self._preroll: deque[bytes] = deque()
        self._preroll_bytes = 0
        self._in_utterance = False
        self._since_interim_s = 0.0
        self._last_interim = ""
        self._utterance_s = 0.0  # audio fed to the open utterance, pre-roll included
        self._utterance_peak = 0  # its loudest sample's magnitude, pre-roll included
        #: the final transcript of every utterance, in order (for logs and tests)
        self.transcripts: list[str] = []

    def can_generate_metrics(self) -> bool:
        """TTFB (speech end to transcript) is reported."""
        return True

    async def start(self, frame: StartFrame) -> None:
        """Build the decoder on the worker thread (about 0.4 s), off the event loop."""
        await super().start(frame)
        if self._executor is None:
            self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix=f"{self.name}-decoder")
        if self._decoder is None:
            narrow = 0 < self.sample_rate <= 8000
            self._cmn_init = NARROWBAND_CMN_INIT if narrow else WIDEBAND_CMN_INIT
            self._decoder = await self._on_worker(self._pool.take, self._cmn_init)

    async def stop(self, frame: EndFrame) -> None:
        await super().stop(frame)
        await self._close()

    async def cancel(self, frame: CancelFrame) -> None:
        await super().cancel(frame)
        await self._close()

    async def _close(self) -> None:
        decoder = self._decoder
        if decoder is not None and self._executor is not None:
            if self._in_utterance:
                self._in_utterance = False
                await self._on_worker(decoder.end_utt)
            self._decoder = None  # after the queued feeds ran: they read it on the worker
            await self._on_worker(self._pool.give_back, self._cmn_init, decoder)
        if self._executor is not None:
            executor, self._executor = self._executor, None
            await asyncio.to_thread(executor.shutdown, wait=True)

    async def process_frame(self, frame: Frame, direction: FrameDirection) -> None:
        """Open an utterance after passing the VAD start on; finish it before passing the VAD stop.

        The start goes first because it is what interrupts the bot (a barge-in should not wait for
        the pre-roll to decode); the audio after it waits in this processor's queue meanwhile. The
        transcript goes before the stop so the user aggregator has it when the turn ends.
        """
        if isinstance(frame, VADUserStoppedSpeakingFrame):
            await self._end_utterance()
        await super().process_frame(frame, direction)
        if isinstance(frame, VADUserStartedSpeakingFrame):
            await self._begin_utterance()

    async def run_stt(self, audio: bytes) -> AsyncGenerator[Frame | None, None]:
        """Feed one input frame to the open utterance (or keep it as pre-roll)."""
        pcm = self._to_decoder_rate(audio)
        if not self._in_utterance:
            if pcm:
                self._keep_preroll(pcm)
            yield None
            return
        await self._on_worker(self._feed, pcm)
        self._utterance_peak = max(self._utterance_peak, pcm16_peak(pcm))
        fed_s = len(pcm) / 2 / DECODER_SAMPLE_RATE
        self._utterance_s += fed_s
        self._since_interim_s += fed_s
        if self._since_interim_s >= self._interim_every_s:
            self._since_interim_s = 0.0
            partial = await self._on_worker(self._hypothesis)
            if partial and partial != self._last_interim:
                self._last_interim = partial
                yield InterimTranscriptionFrame(partial, self._user_id, time_now_iso8601(), Language.EN)
                return
        yield None

    # -- decoding -----------------------------------------------------------------------------

    async def _begin_utterance(self) -> None:
        if self._in_utterance or self._decoder is None:
            return
        self._in_utterance = True
        self._since_interim_s = 0.0
        self._last_interim = ""
        preroll = b"".join(self._preroll)
        self._preroll.clear()
        self._preroll_bytes = 0
        self._utterance_s = len(preroll) / 2 / DECODER_SAMPLE_RATE
        self._utterance_peak = pcm16_peak(preroll)
        await self._on_worker(self._start_with, preroll)

    async def _end_utterance(self) -> None:
        if not self._in_utterance or self._decoder is None:
            return
        self._in_utterance = False
        text, heard = await self._on_worker(self._finish, self._last_interim)
        if self._utterance_peak < SILENCE_PEAK:
            text = ""  # a path through silence is the search's, not the caller's
        if not text:
            # A call that "never answered" is explained here: the VAD heard speech, the
            # recognizer found no words in it (noise, a cough, speech outside the grammar).
            logger.info(f"{self}: {self._utterance_s:.2f} s of speech, no words recognised")
        else:
            logger.debug(f"{self}: heard [{text}] in {self._utterance_s:.2f} s of speech")
        if text:
            self.transcripts.append(text)
            frame = TranscriptionFrame(text, self._user_id, time_now_iso8601(), Language.EN, finalized=True)
            frame.result = heard  # how far the words can be trusted (agent.turn_taking.confidence)
            await self.push_frame(frame)

    def _start_with(self, preroll: bytes) -> None:
        self._decoder.start_utt()
        if preroll:
            self._decoder.process_raw(preroll, False, False)

    def _feed(self, pcm: bytes) -> None:
        if pcm:  # pocketsphinx raises on an empty buffer (soxr's first chunks can be empty)
            self._decoder.process_raw(pcm, False, False)

    def _hypothesis(self) -> str:
        hyp = self._decoder.hyp()
        return "" if hyp is None else clean_hypothesis(str(hyp.hypstr))

    def _finish(self, interim: str) -> tuple[str, Heard | None]:
        """The utterance's transcript, and its words' posteriors when they are the words of the
        transcript (None where a closed grammar put another phrase in the fragment's place)."""
        self._decoder.end_utt()
        final = self._hypothesis()
        grammar = self._pool.grammar
        if grammar is None or final in grammar:
            return final, self._heard(final)
        chosen = in_grammar(final, self._alternatives(), interim, grammar)
        return chosen, self._heard(final) if chosen == final else None

    def _heard(self, final: str) -> Heard | None:
        """``final``'s words with their lattice posteriors (``seg``), if the lattice has them."""
        segments = self._decoder.seg() or ()  # None when the search built no lattice
        words = [(clean_hypothesis(str(s.word)), float(s.prob)) for s in segments]
        words = [(w, p) for w, p in words if w]
        if " ".join(w for w, _ in words) != final:
            return None
        return Heard.of(words, duration_s=self._utterance_s)

    def _alternatives(self) -> list[tuple[str, float]]:
        """The lattice's best ``NBEST`` hypotheses and their scores (none without a lattice)."""
        nbest = self._decoder.nbest()  # None without a lattice; its entries may be None too
        if nbest is None:
            return []
        out: list[tuple[str, float]] = []
        for entry in islice(nbest, NBEST):
            text = getattr(entry, "hypstr", None)
            if text:
                out.append((clean_hypothesis(str(text)), float(entry.score)))
        return out

    async def _on_worker(self, fn: Callable[..., _T], *args: Any) -> _T:
        executor = self._executor
        if executor is None:
            raise RuntimeError(f"{self}: the decoder is used outside StartFrame..EndFrame")
        return await asyncio.get_running_loop().run_in_executor(executor, fn, *args)

    # -- audio --------------------------------------------------------------------------------

    def _to_decoder_rate(self, audio: bytes) -> bytes:
        """``audio`` at the decoder's rate: stateful (no seams between frames) and deterministic
        (``StreamResampler`` runs in float: soxr's own int16 output is randomly dithered)."""
        rate = self.sample_rate
        if rate == DECODER_SAMPLE_RATE or rate <= 0:
            return audio
        if self._resampler is None or self._resampler.in_rate != rate:
            self._resampler = StreamResampler(rate, DECODER_SAMPLE_RATE)
        return float_to_pcm16(self._resampler.process(pcm16_to_float(audio))).astype("<i2").tobytes()

    def _keep_preroll(self, pcm: bytes) -> None:
        self._preroll.append(pcm)
        self._preroll_bytes += len(pcm)
        limit = int(self._preroll_s * DECODER_SAMPLE_RATE) * 2
        while self._preroll and self._preroll_bytes - len(self._preroll[0]) >= limit:
            self._preroll_bytes -= len(self._preroll.popleft())


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
    "DECODER_SAMPLE_RATE",
    "GENERAL_MODEL_OPTIONS",
    "NARROWBAND_CMN_INIT",
    "SILENCE_PEAK",
    "WIDEBAND_CMN_INIT",
    "DecoderFactory",
    "DecoderPool",
    "PocketsphinxSTTService",
    "build_decoder",
    "clean_hypothesis",
    "grammar_of",
    "in_grammar",
    "normalize_phrase",
    "restart",
]
