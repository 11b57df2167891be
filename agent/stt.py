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
model) and 0.4 s to build, so calls share them through a ``DecoderPool`` (``agent.decoders``,
re-exported here): a finished call gives its decoder back and the next call takes it
(``restart``: its front end and cepstral mean as a new decoder's, so one caller's audio never
changes the next caller's words), instead of every call allocating a model that the allocator
seldom returns to the system. This module never downloads anything and never swallows
``CancelledError``.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import AsyncGenerator, Callable, Sequence
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

from agent.decoders import (
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
from agent.turn_taking.confidence import Heard
from tts_service.dsp import float_to_pcm16, pcm16_peak, pcm16_to_float
from tts_service.engine.resample import StreamResampler

#: pocketsphinx's bundled English model is trained on 16 kHz speech
DECODER_SAMPLE_RATE = 16000
#: audio kept from before the VAD confirmed speech (its start_secs is 0.2 s by default)
DEFAULT_PREROLL_S = 0.5
#: how often the running hypothesis is read and pushed, if it changed
INTERIM_EVERY_S = 0.1
#: an utterance whose loudest sample stays below this (about -54 dBFS) is silence, whatever the
#: VAD said: no words, even where the search would find a path through it
SILENCE_PEAK = 64
#: measured end-of-speech-to-transcript p99 on a laptop CPU: only ``end_utt`` is left to do
TTFS_P99_S = 0.1

_T = TypeVar("_T")


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
