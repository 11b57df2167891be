"""``PocketsphinxSTTService``: offline speech recognition for the voice agent, segmented by the VAD.

    stt = PocketsphinxSTTService()                       # pocketsphinx's general English model
    stt = PocketsphinxSTTService(phrases=DEMO_PHRASES)   # a closed grammar: robust for a demo script

The English model ships inside the pocketsphinx wheel: nothing is downloaded. Each final transcript
carries its words' lattice posteriors (``frame.result``: an ``agent.turn_taking.confidence.Heard``),
so the turn-taking weighs the words only as far as the recognizer trusts them. What it shares with
the other offline recognizer (the VAD's segments, the pre-roll, 16 kHz, the worker thread, the
silence check) is ``agent.stt.utterance.UtteranceSTTService``.

Audio is decoded while it arrives, so at ``VADUserStoppedSpeakingFrame`` only ``end_utt`` is left.
An ``InterimTranscriptionFrame`` is pushed when the partial hypothesis changes
(at most every ``interim_every_s``: 0.1 s, so that the turn-taking, which answers speculatively
from it the moment the caller goes quiet, reads words at most that old).
With a closed grammar the final transcript is always one of its phrases when the search found
one: a final hypothesis that is only a fragment (the search ended off the grammar's final
states, which a short backchannel cut a frame early by the VAD often does) gives way to the
running hypothesis, or to the best-scored whole phrase of the lattice (``in_grammar``). An utterance
that never rose above ``SILENCE_PEAK`` (the VAD opened on silence) has no transcript, whatever
path the search found through it.

Decoding runs on the service's worker thread (pocketsphinx decoders are not thread-safe, and
feeding them in order matters), never on the event loop. A decoder costs about 60 MB (the general
model) and 0.4 s to build, so calls share them through a ``DecoderPool`` (``agent.stt.sphinx_decoders``,
re-exported here): a finished call gives its decoder back and the next call takes it
(``restart``: its front end and cepstral mean as a new decoder's, so one caller's audio never
changes the next caller's words), instead of every call allocating a model that the allocator
seldom returns to the system. This module never downloads anything and never swallows
``CancelledError``.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import islice
from typing import Any

from pipecat.frames.frames import Frame, InterimTranscriptionFrame
from pipecat.services.settings import STTSettings
from pipecat.transcriptions.language import Language
from pipecat.utils.time import time_now_iso8601

from agent.stt.sphinx_decoders import (
    GENERAL_MODEL_OPTIONS,
    NARROWBAND_CMN_INIT,
    NBEST,
    WIDEBAND_CMN_INIT,
    DecoderFactory,
    DecoderPool,
    build_decoder,
    clean_hypothesis,
    grammar_of,
    in_grammar,
    normalize_phrase,
    restart,
)
from agent.stt.utterance import (
    DECODER_SAMPLE_RATE,
    DEFAULT_PREROLL_S,
    SILENCE_PEAK,
    Audio,
    UtteranceSTTService,
)
from agent.turn_taking.confidence import Heard

#: how often the running hypothesis is read and pushed, if it changed
INTERIM_EVERY_S = 0.1
#: measured end-of-speech-to-transcript p99 on a laptop CPU: only ``end_utt`` is left to do
TTFS_P99_S = 0.1


class PocketsphinxSTTService(UtteranceSTTService):
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
        super().__init__(preroll_s=preroll_s, **kwargs)
        self._phrases = tuple(phrases) if phrases else None
        if decoder_pool is not None and (phrases or decoder_factory):
            raise ValueError("give either decoder_pool or phrases/decoder_factory: the pool builds its own")
        #: where this call's decoder comes from and goes back to (a pool of its own keeps none)
        self._pool = decoder_pool or DecoderPool(decoder_factory, phrases=self._phrases, max_idle=0)
        self._cmn_init = WIDEBAND_CMN_INIT
        self._interim_every_s = interim_every_s
        self._decoder: Any = None
        self._since_interim_s = 0.0
        self._last_interim = ""

    async def _opened(self) -> None:
        """Take a decoder (a new one takes about 0.4 s to build) on the worker thread."""
        narrow = 0 < self.sample_rate <= 8000
        self._cmn_init = NARROWBAND_CMN_INIT if narrow else WIDEBAND_CMN_INIT
        self._decoder = await self._on_worker(self._pool.take, self._cmn_init)

    async def _closing(self) -> None:
        decoder, self._decoder = self._decoder, None  # after the queued feeds ran: they read it
        if decoder is not None:
            await self._on_worker(self._pool.give_back, self._cmn_init, decoder)

    # -- decoding -----------------------------------------------------------------------------

    async def _utterance_began(self, preroll: Audio) -> None:
        self._since_interim_s = 0.0
        self._last_interim = ""
        await self._on_worker(self._start_with, preroll.pcm)

    async def _utterance_audio(self, audio: Audio) -> Frame | None:
        await self._on_worker(self._feed, audio.pcm)
        self._since_interim_s += len(audio.pcm) / 2 / DECODER_SAMPLE_RATE
        if self._since_interim_s < self._interim_every_s:
            return None
        self._since_interim_s = 0.0
        partial = await self._on_worker(self._hypothesis)
        if not partial or partial == self._last_interim:
            return None
        self._last_interim = partial
        return InterimTranscriptionFrame(partial, self._user_id, time_now_iso8601(), Language.EN)

    async def _utterance_ended(self) -> tuple[str, Heard | None]:
        return await self._on_worker(self._finish, self._last_interim)

    async def _utterance_dropped(self) -> None:
        if self._decoder is not None:
            await self._on_worker(self._decoder.end_utt)

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
