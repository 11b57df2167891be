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
they went on, the whole utterance is transcribed again. So is it, at once, when a short word came
after the pause without ending it (``pause.VoiceInPause``: "I have a friend ... who", whose "who"
is 60-80 ms loud): the words at the pause miss it. A phrase longer than whisper's window keeps
its last 26 s. The service reads the input as it came (the streaming resampler would hold
back the last word's end), and resamples the phrase in one piece for each transcription.

Speech that begins while the bot speaks (a backchannel, or a barge-in) is read as it goes on as
well: ``PEEK_FIRST_S`` after the VAD's start (about 0.3 s into the speech) and every
``PEEK_EVERY_S`` after, until ``PEEK_UNTIL_S``, whisper transcribes the speech so far and the words
go out as a ``agent.turn_taking.frames.PeekTranscriptionFrame`` (empty where it found none: a hum),
which only the barge-in reads (it sends ``PeeksDoneFrame`` back once they make a turn): "Mm hmm."
is talked through before it ends instead of 140 ms after. A peek never runs beside another
transcription of the same utterance (one worker thread); the one at a pause comes first.

The English model and the rest (the VAD's segments, pre-roll, 16 kHz, the worker thread, the
silence check) are as ``agent.stt.utterance.UtteranceSTTService`` says; ``agent.stt.tiny_model``
says why tiny.en, how it is run on short phrases, and what its probabilities mean. Every
transcription runs on the service's worker thread; the one started at a pause is a named task of
the service, cancelled with it. The audio of the open utterance is held until its end: at most
``MAX_UTTERANCE_S``. Its features' matrix product runs on numpy's BLAS: in a process of your own,
hold that to one thread as the agent's server does (``agent.blas``), or its spinning pool takes a
core from Smart Turn, which scores the same pause at the same moment.
"""

from __future__ import annotations

import asyncio
import functools
import threading
from typing import Any

from loguru import logger
from pipecat.frames.frames import (
    BotStartedSpeakingFrame,
    BotStoppedSpeakingFrame,
    Frame,
    InterimTranscriptionFrame,
)
from pipecat.processors.frame_processor import FrameDirection
from pipecat.services.settings import STTSettings
from pipecat.transcriptions.language import Language
from pipecat.utils.time import time_now_iso8601

from agent.stt.tiny_model import PAD_S, SAMPLE_RATE, WINDOW_S, TinyWhisper
from agent.stt.utterance import DEFAULT_PREROLL_S, Audio, UtteranceSTTService
from agent.turn_taking.confidence import Heard
from agent.turn_taking.frames import PeeksDoneFrame, PeekTranscriptionFrame
from agent.turn_taking.pause import (
    PauseBegan,
    PauseDetector,
    PauseEvent,
    PauseSettings,
    SpeechResumed,
    VoiceInPause,
)
from tts_service.dsp import pcm16_to_float
from tts_service.engine.resample import resample_pcm16

#: the most of one utterance kept for whisper (its window less the silence it is given after)
MAX_UTTERANCE_S = WINDOW_S - PAD_S
#: a transcription takes this long at the 99th percentile on one core (``benchmarks/stt_bench.py``)
TTFS_P99_S = 0.15
#: speech over the bot is first read this long after the VAD's start (which is 0.15-0.2 s into
#: it; the bot went quiet then, and a backchannel must have it back within 0.3 s), then every
#: ``PEEK_EVERY_S`` until ``PEEK_UNTIL_S``: past that, its length makes it a turn
PEEK_FIRST_S = 0.12
PEEK_EVERY_S = 0.15
PEEK_UNTIL_S = 1.0
#: a peek reads this much from before the VAD's start: the speech it took to confirm (0.1 s of
#: voice, 0.15-0.2 s in all) and a little quiet before it
PEEK_ONSET_S = 0.3


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
        #: the bot is speaking (the output transport's frames, on their way upstream)
        self._bot_speaking = False
        #: the open utterance's audio since the VAD's start, and when it is next peeked at (None:
        #: it began while the bot was silent, or it is past ``PEEK_UNTIL_S``)
        self._since_start_s = 0.0
        self._next_peek_s: float | None = None
        self._peeking: asyncio.Task[None] | None = None

    async def process_frame(self, frame: Frame, direction: FrameDirection) -> None:
        if isinstance(frame, BotStartedSpeakingFrame):
            self._bot_speaking = True
        elif isinstance(frame, BotStoppedSpeakingFrame):
            self._bot_speaking = False
        elif isinstance(frame, PeeksDoneFrame):
            self._next_peek_s = None  # the barge-in has its verdict: no more peeks this utterance
        await super().process_frame(frame, direction)

    async def _closing(self) -> None:
        await self._drop_pause_transcription()
        await self._drop_peek()

    async def _utterance_began(self, preroll: Audio) -> None:
        await self._drop_pause_transcription()
        await self._drop_peek()
        self._since_start_s = 0.0
        self._next_peek_s = PEEK_FIRST_S if self._bot_speaking else None
        self._pauses.speech_started()
        self._audio = bytearray()
        self._rate = preroll.rate
        self._keep(preroll.raw)

    async def _utterance_audio(self, audio: Audio) -> Frame | None:
        self._keep(audio.raw)
        event = self._follow_level(audio.raw)
        if isinstance(event, PauseBegan):
            logger.debug(f"{self}: quiet at {event.silence_began_s:.2f} s: transcribing what came before")
            await self._transcribe_what_came_before()
        elif isinstance(event, VoiceInPause) and self._at_pause is not None:
            # a short word after the gap ("... a friend | who"): the words at the pause miss it
            logger.debug(f"{self}: {event.lasted_s:.2f} s of voice in the pause: transcribing again")
            await self._transcribe_what_came_before()
        elif isinstance(event, SpeechResumed):
            await self._drop_pause_transcription()  # its words are no longer the utterance's
        self._since_start_s += len(audio.raw) / 2 / self._rate
        self._maybe_peek()
        return None

    def _maybe_peek(self) -> None:
        """Read the speech over the bot so far, when it is due and the worker is free of it."""
        due = self._next_peek_s
        busy = self._peeking is not None or self._at_pause is not None
        if due is None or self._since_start_s < due or busy:
            return
        if self._since_start_s > PEEK_UNTIL_S:
            self._next_peek_s = None
            return
        self._next_peek_s = self._since_start_s + PEEK_EVERY_S
        # the speech since the VAD's start and the onset before it, not all the pre-roll's quiet
        kept = int((self._since_start_s + PEEK_ONSET_S) * self._rate) * 2
        self._peeking = self.create_task(self._peek(bytes(self._audio[-kept:])), "whisper-peek")

    async def _peek(self, audio: bytes) -> None:
        heard = await self._transcribe(audio, so_far=True)
        self._peeking = None
        frame = PeekTranscriptionFrame(heard.text, self._user_id, time_now_iso8601(), Language.EN)
        frame.result = heard
        await self.push_frame(frame)

    async def _drop_peek(self) -> None:
        task, self._peeking = self._peeking, None
        self._next_peek_s = None
        if task is not None:
            await self.cancel_task(task)

    async def _utterance_ended(self) -> tuple[str, Heard | None]:
        await self._drop_peek()
        task, self._at_pause = self._at_pause, None
        heard = await task if task is not None else await self._transcribe(bytes(self._audio))
        self._audio = bytearray()
        return heard.text, heard

    async def _utterance_dropped(self) -> None:
        await self._drop_pause_transcription()
        await self._drop_peek()
        self._audio = bytearray()

    # -- transcribing -------------------------------------------------------------------------

    async def _transcribe_what_came_before(self) -> None:
        await self._drop_pause_transcription()
        heard_so_far = self._transcribe_at_pause(bytes(self._audio))
        self._at_pause = self.create_task(heard_so_far, "whisper-at-pause")

    async def _transcribe_at_pause(self, audio: bytes) -> Heard:
        """The utterance so far; its words go out as an interim (the turn-taking speculates on them)."""
        heard = await self._transcribe(audio)
        if heard.text:
            frame = InterimTranscriptionFrame(heard.text, self._user_id, time_now_iso8601(), Language.EN)
            frame.result = heard
            await self.push_frame(frame)
        return heard

    async def _transcribe(self, audio: bytes, *, so_far: bool = False) -> Heard:
        samples = pcm16_to_float(resample_pcm16(audio, self._rate, SAMPLE_RATE))
        stop = threading.Event()
        transcribe = functools.partial(self._whisper.transcribe, samples, so_far=so_far, stop=stop)
        try:
            return await self._on_worker(transcribe)
        except asyncio.CancelledError:
            # dropped (the caller went on, a word came in the pause): the worker leaves it at its
            # next stage, and the transcription that replaces it waits less
            stop.set()
            raise

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
