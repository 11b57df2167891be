"""``UtteranceSTTService``: what the agent's offline recognizers share: one utterance per VAD segment.

    class MySTT(UtteranceSTTService):
        async def _utterance_began(self, preroll: Audio) -> None: ...     # what came just before
        async def _utterance_audio(self, audio: Audio) -> Frame | None: ... # each frame; an interim?
        async def _utterance_ended(self) -> tuple[str, Heard | None]: ... # the final words

The service must sit after a VAD (``pipecat.processors.audio.vad_processor.VADProcessor``) so it
sees ``VADUserStartedSpeakingFrame`` / ``VADUserStoppedSpeakingFrame`` in order with the audio.
Every input frame is resampled to 16 kHz (stateful, in float: soxr's own int16 output is randomly
dithered, and the same audio must give the same words) for a recognizer that streams it; the
resampler hands its output on in blocks of about 100 ms, so a recognizer that needs the audio up
to now (to act on a pause) reads the input as it came (``Audio``: both). The VAD confirms speech
only ``start_secs`` after it began, so the last ``preroll_s`` of audio is kept and handed over
first.

At ``VADUserStoppedSpeakingFrame`` the recognizer's final words go out as a ``TranscriptionFrame``
(``finalized=True``, ``frame.result``: an ``agent.turn_taking.confidence.Heard`` when the
recognizer gives one) right before the stop frame, so the user aggregator has them when the turn
ends. An utterance that never rose above ``SILENCE_PEAK`` (the VAD opened on silence) has no
transcript, whatever a recognizer made of it.

Recognition runs on one worker thread per service (``_on_worker``), never on the event loop.
This module never swallows ``CancelledError``.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import AsyncGenerator, Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, TypeVar

from loguru import logger
from pipecat.frames.frames import (
    CancelFrame,
    EndFrame,
    Frame,
    StartFrame,
    TranscriptionFrame,
    VADUserStartedSpeakingFrame,
    VADUserStoppedSpeakingFrame,
)
from pipecat.processors.frame_processor import FrameDirection
from pipecat.services.stt_service import STTService
from pipecat.transcriptions.language import Language
from pipecat.utils.time import time_now_iso8601

from agent.turn_taking.confidence import Heard
from tts_service.dsp import float_to_pcm16, pcm16_peak, pcm16_to_float
from tts_service.engine.resample import StreamResampler

#: the rate both offline recognizers read (pocketsphinx's English model and whisper are 16 kHz)
DECODER_SAMPLE_RATE = 16000
#: audio kept from before the VAD confirmed speech (its start_secs is 0.2 s by default)
DEFAULT_PREROLL_S = 0.5
#: an utterance whose loudest sample stays below this (about -54 dBFS) is silence, whatever the
#: VAD said: no words, even where the search would find a path through it
SILENCE_PEAK = 64

_T = TypeVar("_T")


@dataclass(frozen=True, slots=True)
class Audio:
    """A stretch of the caller's audio two ways: resampled to 16 kHz (``pcm``, which lags the input
    by up to one of the resampler's blocks) and as it came (``raw``, at ``rate``): int16 PCM."""

    pcm: bytes
    raw: bytes
    rate: int


class _Recent:
    """The last ``seconds`` of a PCM stream (int16, ``rate``), in the chunks it came in."""

    def __init__(self, seconds: float, rate: int) -> None:
        self._limit = int(seconds * rate) * 2
        self._chunks: deque[bytes] = deque()
        self._bytes = 0

    def add(self, pcm: bytes) -> None:
        self._chunks.append(pcm)
        self._bytes += len(pcm)
        while self._chunks and self._bytes - len(self._chunks[0]) >= self._limit:
            self._bytes -= len(self._chunks.popleft())

    def take(self) -> bytes:
        """All of it, and forget it."""
        out = b"".join(self._chunks)
        self._chunks.clear()
        self._bytes = 0
        return out


class UtteranceSTTService(STTService):
    """An offline STT that hears one utterance per VAD segment (see the module doc)."""

    def __init__(self, *, preroll_s: float = DEFAULT_PREROLL_S, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._preroll_s = preroll_s
        self._executor: ThreadPoolExecutor | None = None
        self._resampler: StreamResampler | None = None
        self._preroll = _Recent(preroll_s, DECODER_SAMPLE_RATE)
        self._preroll_raw: _Recent | None = None  # at the input's rate, known from the first frame
        self._in_utterance = False
        self._utterance_s = 0.0  # audio fed to the open utterance, pre-roll included
        self._utterance_peak = 0  # its loudest sample's magnitude, pre-roll included
        #: the final transcript of every utterance, in order (for logs and tests)
        self.transcripts: list[str] = []

    def can_generate_metrics(self) -> bool:
        """TTFB (speech end to transcript) is reported."""
        return True

    # -- what a recognizer implements ---------------------------------------------------------

    async def _opened(self) -> None:
        """The service started (its worker exists): get ready to hear, off the event loop."""

    async def _closing(self) -> None:
        """The service stops (its worker still runs, any utterance ended): let go of what it holds."""

    async def _utterance_began(self, preroll: Audio) -> None:
        """An utterance opens with ``preroll``, the audio just before the VAD confirmed it."""
        raise NotImplementedError

    async def _utterance_audio(self, audio: Audio) -> Frame | None:
        """The next stretch of the open utterance: an interim frame, or None."""
        raise NotImplementedError

    async def _utterance_ended(self) -> tuple[str, Heard | None]:
        """The open utterance is over: its words, and how far they can be trusted."""
        raise NotImplementedError

    async def _utterance_dropped(self) -> None:
        """The service stops in the middle of an utterance: end it, nobody wants its words."""

    # -- the service --------------------------------------------------------------------------

    async def start(self, frame: StartFrame) -> None:
        await super().start(frame)
        if self._executor is None:
            self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix=f"{self.name}-recognizer")
            await self._opened()

    async def stop(self, frame: EndFrame) -> None:
        await super().stop(frame)
        await self._close()

    async def cancel(self, frame: CancelFrame) -> None:
        await super().cancel(frame)
        await self._close()

    async def _close(self) -> None:
        if self._executor is None:
            return
        if self._in_utterance:
            self._in_utterance = False
            await self._utterance_dropped()
        await self._closing()
        executor, self._executor = self._executor, None
        await asyncio.to_thread(executor.shutdown, wait=True)

    async def process_frame(self, frame: Frame, direction: FrameDirection) -> None:
        """Open an utterance after passing the VAD start on; finish it before passing the VAD stop.

        The start goes first because it is what interrupts the bot (a barge-in should not wait for
        the pre-roll to be heard); the audio after it waits in this processor's queue meanwhile.
        The transcript goes before the stop so the user aggregator has it when the turn ends.
        """
        if isinstance(frame, VADUserStoppedSpeakingFrame):
            await self._end_utterance()
        await super().process_frame(frame, direction)
        if isinstance(frame, VADUserStartedSpeakingFrame):
            await self._begin_utterance()

    async def run_stt(self, audio: bytes) -> AsyncGenerator[Frame | None, None]:
        """Hand one input frame to the open utterance (or keep it as pre-roll)."""
        pcm = self._to_decoder_rate(audio)
        if not self._in_utterance:
            if pcm:
                self._preroll.add(pcm)
            if self._preroll_raw is None:
                self._preroll_raw = _Recent(self._preroll_s, self.sample_rate)
            self._preroll_raw.add(audio)
            yield None
            return
        self._utterance_peak = max(self._utterance_peak, pcm16_peak(pcm))
        self._utterance_s += len(pcm) / 2 / DECODER_SAMPLE_RATE
        yield await self._utterance_audio(Audio(pcm, audio, self.sample_rate))

    async def _begin_utterance(self) -> None:
        if self._in_utterance or self._executor is None:
            return
        self._in_utterance = True
        preroll = self._preroll.take()
        raw = self._preroll_raw.take() if self._preroll_raw is not None else b""
        self._utterance_s = len(preroll) / 2 / DECODER_SAMPLE_RATE
        self._utterance_peak = pcm16_peak(preroll)
        await self._utterance_began(Audio(preroll, raw, self.sample_rate))

    async def _end_utterance(self) -> None:
        if not self._in_utterance or self._executor is None:
            return
        self._in_utterance = False
        text, heard = await self._utterance_ended()
        if self._utterance_peak < SILENCE_PEAK:
            text = ""  # a path through silence is the recognizer's, not the caller's
        if not text:
            # A call that "never answered" is explained here: the VAD heard speech, the
            # recognizer found no words in it (noise, a cough, speech outside the grammar).
            logger.info(f"{self}: {self._utterance_s:.2f} s of speech, no words recognised")
            return
        odds = ""
        if heard is not None and heard.words:
            ends = "" if heard.ends is None else f", ends {heard.ends:.2f}"
            after = "" if heard.unheard_s is None else f", voice after it {heard.unheard_s:.2f} s"
            odds = f" (last word {heard.last_confidence:.2f}, unfinished {heard.unfinished:.4f}{ends}{after})"
        logger.debug(f"{self}: heard [{text}] in {self._utterance_s:.2f} s of speech{odds}")
        self.transcripts.append(text)
        frame = TranscriptionFrame(text, self._user_id, time_now_iso8601(), Language.EN, finalized=True)
        frame.result = heard  # how far the words can be trusted (agent.turn_taking.confidence)
        await self.push_frame(frame)

    async def _on_worker(self, fn: Callable[..., _T], *args: Any) -> _T:
        executor = self._executor
        if executor is None:
            raise RuntimeError(f"{self}: the recognizer is used outside StartFrame..EndFrame")
        return await asyncio.get_running_loop().run_in_executor(executor, fn, *args)

    # -- audio --------------------------------------------------------------------------------

    def _to_decoder_rate(self, audio: bytes) -> bytes:
        """``audio`` at the recognizer's rate: stateful (no seams between frames) and deterministic
        (``StreamResampler`` runs in float: soxr's own int16 output is randomly dithered)."""
        rate = self.sample_rate
        if rate == DECODER_SAMPLE_RATE or rate <= 0:
            return audio
        if self._resampler is None or self._resampler.in_rate != rate:
            self._resampler = StreamResampler(rate, DECODER_SAMPLE_RATE)
        return float_to_pcm16(self._resampler.process(pcm16_to_float(audio))).astype("<i2").tobytes()


__all__ = ["DECODER_SAMPLE_RATE", "DEFAULT_PREROLL_S", "SILENCE_PEAK", "Audio", "UtteranceSTTService"]
