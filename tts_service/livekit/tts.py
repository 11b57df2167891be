"""``WarmlineTTS``: the persistent Warmline engine as a LiveKit Agents TTS plugin.

    session = AgentSession(stt=..., llm=..., tts=WarmlineTTS(voice="heart"), vad=...)

How LiveKit's calls map onto the engine (one ``RuntimeSession`` per stream, on one warm runtime
that every stream of this ``WarmlineTTS`` shares):

=============================  ===================================================================
LiveKit                        engine
=============================  ===================================================================
``prewarm()``                  the model loads and says one warm-up turn (``tts_service.runtime.warmup``)
``stream()``                   a session opens at ``sample_rate`` (the model is already warm)
``push_text(token)``           ``inject`` at once, however the LLM split it; the engine decides
                               the phrasing, so first audio follows the first clause
``flush()``                    the segment's text is complete: ``flush``; its audio ends with the
                               segment (``end_segment``) once the engine says ``Done``
``end_input()``                the last segment is complete; the stream ends after its audio
``aclose()`` (an interruption) the session closes at once: nothing more is made or emitted
``synthesize(text)``           one whole turn, unpaced (``ChunkedStream.collect()`` is quick)
=============================  ===================================================================

Every 80 ms frame is pushed as it leaves the engine, preceded by a ``TimedString`` for each
word whose audio starts in it (seconds from the start of its segment, from the engine's word
marks), so LiveKit's transcription synchronizer shows each word as it is heard. A stream hands
audio on at most ``max_lead_s`` ahead of real time (as the Pipecat service does): the shared
runtime computes what is about to be heard first, and an interrupted answer leaves little made
for nothing. An engine ``ErrorEvent`` (a unit the model failed on) is emitted as a recoverable
``TTSError`` and the turn goes on; a failure to open the session or a refused text ends the
stream with ``APIError`` (not retried: the same text would fail the same way).

Segments of one stream run one after another, each a turn of the conversation model
(``engine.turns``) with its own segment id. This is the only module of ``tts_service`` that
imports ``livekit`` besides ``compat``, where the plugin surface's protected names live.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator, Callable, Coroutine
from dataclasses import dataclass, replace
from typing import Any, Never, TypeAlias

from livekit.agents import (
    DEFAULT_API_CONNECT_OPTIONS,
    APIConnectOptions,
    APIError,
    tts,
    utils,
)
from livekit.agents.types import TimedString

from tts_service.backends import create_backend
from tts_service.engine.listener import ListenerClock
from tts_service.engine.ports import Backend
from tts_service.engine.session import SessionConfig
from tts_service.engine.turns import Conversation, Turn
from tts_service.engine.types import Done, ErrorEvent, SpeechFrame, check_sample_rate
from tts_service.errors import WarmlineError
from tts_service.languages import choose_voice
from tts_service.livekit.compat import FLUSH, mark_started, pushed_input
from tts_service.runtime import EngineRuntime, RuntimeSession
from tts_service.runtime.warmup import warm_backend, warm_runtime

log = logging.getLogger("warmline.livekit")

#: how far ahead of real time a stream hands audio to LiveKit (the Pipecat service's default)
DEFAULT_MAX_LEAD_S = 1.0


#: what ``WarmlineTTS`` hands out: its streams, and its whole-text syntheses
_Stream: TypeAlias = "tts.SynthesizeStream | tts.ChunkedStream"


@dataclass(frozen=True, slots=True)
class _Options:
    voice: str | None
    speed: float
    sample_rate: int
    #: BCP 47; the voice if it speaks it, else a loaded voice that does (``languages.choose_voice``)
    language: str | None = None


class WarmlineTTS(tts.TTS[Never]):
    """A LiveKit Agents ``TTS`` over the Warmline engine: streaming, with word-aligned transcripts.

    Pass ``runtime`` to share one warm model (and its worker threads) with other code in the
    process; its owner starts and closes it. Otherwise this TTS builds ``backend`` (or
    ``backend_name``) into a runtime of its own and closes it in ``aclose()``. The model loads
    and warms in ``prewarm()`` (call it from the worker's prewarm function, as
    ``examples/livekit_agent.py`` does; ``AgentSession`` calls it again as it starts), else on
    the first stream, which then waits for it. ``sample_rate`` is 8000, 16000, 24000 or 48000.
    """

    def __init__(
        self,
        *,
        voice: str | None = None,
        speed: float = 1.0,
        sample_rate: int = 24000,
        language: str | None = None,
        runtime: EngineRuntime | None = None,
        backend: Backend | None = None,
        backend_name: str = "hibari",
        workers: int = 2,
        session_config: SessionConfig | None = None,
        max_lead_s: float | None = DEFAULT_MAX_LEAD_S,
    ) -> None:
        if runtime is not None and backend is not None:
            raise ValueError("pass either runtime or backend, not both")
        check_sample_rate(sample_rate)
        super().__init__(
            capabilities=tts.TTSCapabilities(streaming=True, aligned_transcript=True),
            sample_rate=sample_rate,
            num_channels=1,
        )
        self._runtime = runtime or EngineRuntime(backend or create_backend(backend_name), workers=workers)
        self._owns_runtime = runtime is None
        self._session_config = session_config or SessionConfig()
        self._opts = _Options(
            voice=voice or self._session_config.voice, speed=speed, sample_rate=sample_rate, language=language
        )
        self._max_lead_s = max_lead_s
        self._starting: asyncio.Task[None] | None = None
        #: the warm-up turn has been said at this TTS's settings (``prewarm``)
        self._warm = False
        self._streams: set[_Stream] = set()

    @property
    def model(self) -> str:
        return self._runtime.backend.name

    @property
    def provider(self) -> str:
        return "warmline"

    @property
    def runtime(self) -> EngineRuntime:
        return self._runtime

    def update_options(
        self, *, voice: str | None = None, speed: float | None = None, language: str | None = None
    ) -> None:
        """Voice, speed and language for the streams opened from now on (one running keeps its own)."""
        self._opts = replace(
            self._opts,
            voice=voice if voice is not None else self._opts.voice,
            speed=speed if speed is not None else self._opts.speed,
            language=language if language is not None else self._opts.language,
        )

    @property
    def warm(self) -> bool:
        """Whether the model is loaded and the warm-up turn has been said (``prewarm``)."""
        return self._warm

    def prewarm(self) -> None:
        """LiveKit's hook: load and warm the model now, so the first stream does not wait for it.

        With no event loop running (a worker's ``prewarm_fnc`` / ``setup_fnc``, which LiveKit runs
        in the job process before the job's loop exists) this blocks until the model is loaded and
        the warm-up turn said (``tts_service.runtime.warmup``); the first stream then only starts the
        worker threads. With a loop running (``AgentSession`` calls this as it starts) it returns
        at once: a task loads the model off the loop and says the warm-up turn on the runtime
        (``wait_warm()`` awaits it), and a stream opened meanwhile waits for that task.
        """
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            if not self._runtime.started and not self._warm:
                warm_backend(self._runtime.backend, self._stream_config())
                self._warm = True
            return
        self._ensure_starting(warm=not self._warm)

    async def wait_warm(self) -> None:
        """Start and warm the model (as ``prewarm()`` does in a loop) and return once it is done."""
        await asyncio.shield(self._ensure_starting(warm=not self._warm))

    def synthesize(
        self, text: str, *, conn_options: APIConnectOptions = DEFAULT_API_CONNECT_OPTIONS
    ) -> WarmlineChunkedStream:
        return WarmlineChunkedStream(tts=self, input_text=text, conn_options=conn_options)

    def stream(self, *, conn_options: APIConnectOptions = DEFAULT_API_CONNECT_OPTIONS) -> WarmlineStream:
        return WarmlineStream(tts=self, conn_options=conn_options)

    async def aclose(self) -> None:
        """Close every stream still open, then the runtime if this TTS owns it."""
        for stream in list(self._streams):
            await stream.aclose()
        if self._starting is not None and not self._starting.done():
            self._starting.cancel()
        if self._starting is not None:
            await asyncio.gather(self._starting, return_exceptions=True)
        if self._owns_runtime:
            await self._runtime.aclose()

    # -- for the streams ----------------------------------------------------------------------

    def _ensure_starting(self, *, warm: bool = False) -> asyncio.Task[None]:
        """The task that starts the runtime (and with ``warm`` says the warm-up turn), once."""
        if self._starting is None or (self._starting.done() and self._starting.exception() is not None):
            start = self._start_and_warm() if warm else self._runtime.start()
            self._starting = asyncio.create_task(start, name="warmline-livekit-runtime-start")
        return self._starting

    async def _start_and_warm(self) -> None:
        await warm_runtime(self._runtime, self._stream_config())
        self._warm = True

    def _stream_config(self) -> SessionConfig:
        """The session settings of a stream opened now: this TTS's rate, voice and speed."""
        return replace(
            self._session_config,
            voice=self._opts.voice,
            speed=self._opts.speed,
            sample_rate=self._opts.sample_rate,
        )

    @contextlib.asynccontextmanager
    async def _session_for(self, stream: _Stream) -> AsyncIterator[RuntimeSession]:
        """A session on the warm runtime at this TTS's rate, voice and speed, for ``stream``."""
        self._streams.add(stream)
        try:
            try:
                await asyncio.shield(self._ensure_starting())
                config = self._stream_config()
                if self._opts.language is not None:
                    backend = self._runtime.backend
                    current = config.voice or backend.default_voice
                    voice = choose_voice(backend, current=current, voice=None, language=self._opts.language)
                    config = replace(config, voice=voice)
                session = await self._runtime.open_session(config)
            except WarmlineError as exc:
                raise APIError(f"warmline: {exc}", retryable=False) from exc
            async with session:
                yield session
        finally:
            self._streams.discard(stream)

    def _engine_error(self, event: ErrorEvent) -> None:
        log.warning("warmline: turn %d: %s: %s", event.turn_id, event.code, event.message)
        error = APIError(f"warmline: {event.code}: {event.message}", retryable=False)
        report = tts.TTSError(timestamp=time.time(), label=self.label, error=error, recoverable=True)
        self.emit("error", report)


class _Speaker:
    """One engine session's turns out to one ``AudioEmitter``: frames, words and segment ends."""

    def __init__(
        self, owner: WarmlineTTS, session: RuntimeSession, emitter: tts.AudioEmitter, *, paced: bool
    ) -> None:
        self._owner = owner
        self._session = session
        self._emitter = emitter
        self._turns = Conversation(session)
        self._listener = ListenerClock(owner._max_lead_s or 0.0)
        self._paced = paced and owner._max_lead_s is not None
        #: the segment that takes text now (None between a flush and the next text)
        self._open: Turn | None = None
        self._input_ended = False
        self.finished = asyncio.Event()

    # -- text in ------------------------------------------------------------------------------

    def text(self, piece: str) -> None:
        if self._open is None:
            self._open = self._turns.open(key=utils.shortuuid(), now_s=self._now())
        self._turns.add_text(self._open, piece)
        self._start_next()

    def flush(self) -> None:
        if self._open is not None:
            self._turns.finish(self._open)
            self._open = None

    def end_input(self) -> None:
        self.flush()
        self._input_ended = True
        self._check_finished()

    def _start_next(self) -> None:
        head = self._turns.startable()
        if head is None:
            return
        self._emitter.start_segment(segment_id=str(head.key))
        self._listener.stream_break()
        self._turns.start(head)

    def _check_finished(self) -> None:
        if self._input_ended and self._turns.idle:
            self.finished.set()

    # -- audio out ----------------------------------------------------------------------------

    async def run(self) -> None:
        """Hand the session's frames and words on in order, until cancelled (see ``_speak``)."""
        while True:
            try:
                out = await self._session.next_output()
            except StopAsyncIteration:
                raise APIError("warmline: the engine closed the session", retryable=False) from None
            turn = self._turns.route(out)
            if turn is None:
                continue
            if isinstance(out, SpeechFrame):
                await self._deliver(turn, out)
            elif isinstance(out, Done):
                self._emitter.end_segment()
                self._start_next()
                self._check_finished()
            elif isinstance(out, ErrorEvent):
                self._owner._engine_error(out)

    async def _deliver(self, turn: Turn, frame: SpeechFrame) -> None:
        if self._paced and (delay_s := self._listener.delay_s(self._now())) > 0:
            await asyncio.sleep(delay_s)
        now = self._now()
        self._turns.heard(turn, frame, now_s=now)
        self._listener.sent(now, frame.num_samples / frame.sample_rate)
        rate = frame.sample_rate
        for mark in frame.words:
            start_s, end_s = mark.start_sample / rate, mark.end_sample / rate
            self._emitter.push_timed_transcript(TimedString(f"{mark.word} ", start_s, end_s))
        self._emitter.push(frame.pcm16_bytes())

    @staticmethod
    def _now() -> float:
        return asyncio.get_running_loop().time()


class WarmlineStream(tts.SynthesizeStream):
    """``WarmlineTTS.stream()``: pushed text is injected into a live engine session as it comes."""

    def __init__(self, *, tts: WarmlineTTS, conn_options: APIConnectOptions) -> None:
        super().__init__(tts=tts, conn_options=conn_options)
        self._warmline = tts

    async def _run(self, output_emitter: tts.AudioEmitter) -> None:
        await _speak(self._warmline, self, output_emitter, self._feed, paced=True)

    async def _feed(self, speaker: _Speaker) -> None:
        async for piece in pushed_input(self):
            if piece is FLUSH:
                speaker.flush()
            elif piece:
                mark_started(self)
                speaker.text(piece)
        speaker.end_input()
        await speaker.finished.wait()


class WarmlineChunkedStream(tts.ChunkedStream):
    """``WarmlineTTS.synthesize(text)``: one whole turn, as fast as the runtime makes it."""

    def __init__(self, *, tts: WarmlineTTS, input_text: str, conn_options: APIConnectOptions) -> None:
        super().__init__(tts=tts, input_text=input_text, conn_options=conn_options)
        self._warmline = tts

    async def _run(self, output_emitter: tts.AudioEmitter) -> None:
        await _speak(self._warmline, self, output_emitter, self._feed, paced=False)

    async def _feed(self, speaker: _Speaker) -> None:
        speaker.text(self.input_text)
        speaker.end_input()
        await speaker.finished.wait()


async def _speak(
    owner: WarmlineTTS,
    stream: _Stream,
    emitter: tts.AudioEmitter,
    feed: Callable[[_Speaker], Coroutine[Any, Any, None]],
    *,
    paced: bool,
) -> None:
    """One stream's ``_run``: a session for it, ``feed`` (text in; returns once every segment's
    audio ended) beside ``_Speaker.run`` (audio out) into ``emitter``.

    The first to fail ends both; the engine's own errors reach LiveKit as ``APIError`` (its
    retry and error reporting know only those), not retried: the same text fails the same way.
    """
    emitter.initialize(
        request_id=utils.shortuuid(),
        sample_rate=owner.sample_rate,
        num_channels=1,
        mime_type="audio/pcm",
        frame_size_ms=80,
        stream=True,
    )
    name = f"warmline-livekit-{id(stream):x}"
    async with owner._session_for(stream) as session:
        speaker = _Speaker(owner, session, emitter, paced=paced)
        feeder = asyncio.create_task(feed(speaker), name=f"{name}-text")
        audio = asyncio.create_task(speaker.run(), name=f"{name}-audio")
        try:
            done, _ = await asyncio.wait({feeder, audio}, return_when=asyncio.FIRST_COMPLETED)
            for task in done:
                task.result()
        except WarmlineError as exc:
            raise APIError(f"warmline: {exc}", retryable=False) from exc
        finally:
            for task in (feeder, audio):
                task.cancel()
            await asyncio.gather(feeder, audio, return_exceptions=True)


__all__ = ["DEFAULT_MAX_LEAD_S", "WarmlineChunkedStream", "WarmlineStream", "WarmlineTTS"]
