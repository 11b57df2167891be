"""``TinyWhisperSTTService``: the agent's default STT, whisper tiny.en offline, its words ready at the pause.

    whisper = load_tiny_whisper()                          # once per process, before serving
    stt = TinyWhisperSTTService(whisper=whisper)           # per call: no load

Whisper hears a whole phrase at once, so it cannot run as the caller speaks; run only at the VAD's
stop, it would add its 40-120 ms to every answer. So the service follows the caller's level
(``turn_taking.pause.PauseDetector``, on the audio's own clock): the moment they go quiet (60 ms
in, some 200 ms before the VAD's stop) it transcribes the utterance so far, and pushes the words
as an ``InterimTranscriptionFrame`` whose ``result`` is their ``confidence.Heard``: the
turn-taking answers speculatively from them. At the VAD's stop those same words are the final
transcript if the caller said nothing more after the pause, with no second transcription; if
they went on, the whole utterance is transcribed again. A phrase longer than whisper's window
keeps its last 26 s. The service reads the input as it came (the streaming resampler would hold
back the last word's end), and resamples the phrase in one piece for each transcription.

The English model and the rest (the VAD's segments, pre-roll, 16 kHz, the worker thread, the
silence check) are as ``agent.stt.utterance.UtteranceSTTService`` says; ``agent.stt.tiny_model``
says why tiny.en, how it is run on short phrases, and what its probabilities mean. Every
transcription runs on the service's worker thread; the one started at a pause is a named task of
the service, cancelled with it. The audio of the open utterance is held until its end: at most
``MAX_UTTERANCE_S``.
"""

from __future__ import annotations

import asyncio
from typing import Any

from loguru import logger
from pipecat.frames.frames import Frame, InterimTranscriptionFrame
from pipecat.services.settings import STTSettings
from pipecat.transcriptions.language import Language
from pipecat.utils.time import time_now_iso8601

from agent.stt.tiny_model import PAD_S, SAMPLE_RATE, WINDOW_S, TinyWhisper
from agent.stt.utterance import DEFAULT_PREROLL_S, Audio, UtteranceSTTService
from agent.turn_taking.confidence import Heard
from agent.turn_taking.pause import PauseBegan, PauseDetector, PauseEvent, PauseSettings, SpeechResumed
from tts_service.dsp import pcm16_to_float
from tts_service.engine.resample import resample_pcm16

#: the most of one utterance kept for whisper (its window less the silence it is given after)
MAX_UTTERANCE_S = WINDOW_S - PAD_S
#: a transcription takes this long at the 99th percentile on one core (``benchmarks/stt_bench.py``)
TTFS_P99_S = 0.15


class TinyWhisperSTTService(UtteranceSTTService):
    """whisper tiny.en on each utterance, transcribed when the caller pauses (see the module doc)."""

    def __init__(
        self,
        *,
        whisper: TinyWhisper,
        preroll_s: float = DEFAULT_PREROLL_S,
        pause: PauseSettings | None = None,
        **kwargs: Any,
    ) -> None:
        kwargs.setdefault("ttfs_p99_latency", TTFS_P99_S)
        kwargs.setdefault("settings", STTSettings(model="whisper-tiny.en", language=Language.EN))
        super().__init__(preroll_s=preroll_s, **kwargs)
        self._whisper = whisper
        #: the caller's level and the line's noise, followed through the call's utterances (as the
        #: turn-taking's detector follows them: both must hear a pause at the same moment)
        self._pauses = PauseDetector(pause)
        self._heard_s = 0.0  # the utterances' audio so far: the pauses' clock
        self._audio = bytearray()  # the open utterance, as it came
        self._rate = SAMPLE_RATE
        #: the transcription of the utterance up to a pause, while nothing was said after it
        self._at_pause: asyncio.Task[Heard] | None = None

    async def _closing(self) -> None:
        await self._drop_pause_transcription()

    async def _utterance_began(self, preroll: Audio) -> None:
        await self._drop_pause_transcription()
        self._pauses.speech_started()
        self._audio = bytearray()
        self._rate = preroll.rate
        self._keep(preroll.raw)

    async def _utterance_audio(self, audio: Audio) -> Frame | None:
        self._keep(audio.raw)
        event = self._follow_level(audio.raw)
        if isinstance(event, PauseBegan):
            logger.debug(f"{self}: quiet at {event.silence_began_s:.2f} s: transcribing what came before")
            await self._drop_pause_transcription()
            heard_so_far = self._transcribe_at_pause(bytes(self._audio))
            self._at_pause = self.create_task(heard_so_far, "whisper-at-pause")
        elif isinstance(event, SpeechResumed):
            await self._drop_pause_transcription()  # its words are no longer the utterance's
        return None

    async def _utterance_ended(self) -> tuple[str, Heard | None]:
        task, self._at_pause = self._at_pause, None
        heard = await task if task is not None else await self._transcribe(bytes(self._audio))
        self._audio = bytearray()
        return heard.text, heard

    async def _utterance_dropped(self) -> None:
        await self._drop_pause_transcription()
        self._audio = bytearray()

    # -- transcribing -------------------------------------------------------------------------

    async def _transcribe_at_pause(self, audio: bytes) -> Heard:
        """The utterance so far; its words go out as an interim (the turn-taking speculates on them)."""
        heard = await self._transcribe(audio)
        if heard.text:
            frame = InterimTranscriptionFrame(heard.text, self._user_id, time_now_iso8601(), Language.EN)
            frame.result = heard
            await self.push_frame(frame)
        return heard

    async def _transcribe(self, audio: bytes) -> Heard:
        samples = pcm16_to_float(resample_pcm16(audio, self._rate, SAMPLE_RATE))
        return await self._on_worker(self._whisper.transcribe, samples)

    async def _drop_pause_transcription(self) -> None:
        task, self._at_pause = self._at_pause, None
        if task is not None:
            await self.cancel_task(task)

    def _follow_level(self, raw: bytes) -> PauseEvent | None:
        duration_s = len(raw) / 2 / self._rate
        self._heard_s += duration_s
        return self._pauses.feed(raw, self._heard_s, duration_s) if duration_s else None

    def _keep(self, raw: bytes) -> None:
        self._audio += raw
        excess = len(self._audio) - int(MAX_UTTERANCE_S * self._rate) * 2
        if excess > 0:
            del self._audio[:excess]


__all__ = ["MAX_UTTERANCE_S", "TinyWhisperSTTService"]
