"""``WarmlineTTSService``: the persistent Warmline engine as a drop-in Pipecat TTS service.

    tts = WarmlineTTSService(voice="heart")   # where the pipeline had another TTS service

How Pipecat's events map onto the engine's verbs (one ``RuntimeSession`` per service):

=============================  ===================================================================
Pipecat                        engine
=============================  ===================================================================
LLM token (TOKEN aggregation)  ``run_tts`` -> ``inject`` at once; the engine decides the phrasing
``LLMFullResponseEndFrame``    ``flush_audio`` -> ``flush``; on ``Done``: ``TTSStoppedFrame``, ``reset``
``InterruptionFrame``          ``on_audio_context_interrupted`` -> ``pause`` + ``reset``; the turn's
                               frames still on their way are dropped by turn id
``TTSSpeakFrame``              a turn of its own, queued behind the running one
``TTSUpdateSettingsFrame``     voice and speed applied before the next turn starts
=============================  ===================================================================

The engine runs beside the pipeline: a task named after the service reads the session and hands
every 80 ms frame to the turn's audio context as one ``TTSAudioRawFrame``, followed by the words
whose audio starts in it, through ``add_word_timestamps`` (seconds into the audio context).
Pipecat turns those into ``TTSTextFrame`` s with a PTS; a transport releases each at its PTS and
the assistant aggregator records what was released, so after a barge-in the context holds the
words whose audio began playing. Two details keep that exact (see ``_promote_words_for``): LLM
tokens reach Pipecat's word matcher only in whole words, and the pending text is promoted to a
matchable segment before its words are reported, so the words of a sentence the LLM has not
finished are neither held back nor lost on interruption.

This module must never run model compute or load weights on the event loop, never yield audio
from ``run_tts`` (that would block the processor and queue tokens behind synthesis), never let a
frame of an interrupted turn reach the pipeline, and never swallow ``CancelledError``. It is the
only module of ``tts_service`` that imports pipecat.
"""

from __future__ import annotations

import asyncio
import re
from collections import deque
from collections.abc import AsyncGenerator, Awaitable, Callable
from dataclasses import dataclass, field, replace
from typing import Any, cast

from loguru import logger
from pipecat.frames.frames import (
    CancelFrame,
    EndFrame,
    InterruptionFrame,
    LLMFullResponseEndFrame,
    LLMTextFrame,
    StartFrame,
    TTSAudioRawFrame,
    TTSStoppedFrame,
)
from pipecat.frames.frames import Frame as PipecatFrame
from pipecat.processors.frame_processor import FrameDirection
from pipecat.services.settings import TTSSettings
from pipecat.services.tts_service import TextAggregationMode, TTSService
from pipecat.utils.types import NOT_GIVEN, NotGiven, is_given

from tts_service.backends import create_backend
from tts_service.engine.ports import Backend
from tts_service.engine.session import SessionConfig, SessionState
from tts_service.engine.types import Done, ErrorEvent, Output, check_sample_rate
from tts_service.engine.types import Frame as EngineFrame
from tts_service.errors import WarmlineError
from tts_service.runtime import EngineRuntime, RuntimeSession

#: how far ahead of real time the service hands audio to Pipecat; the engine computes at most
#: this much (plus its own look-ahead) before the listener needs it, so pause stays cheap and a
#: shared runtime serves the call that is about to starve first
DEFAULT_MAX_LEAD_S = 1.0

#: the trailing run of non-space characters: the word an LLM may still be writing
_LAST_WORD = re.compile(r"\S*\Z")


@dataclass
class WarmlineTTSSettings(TTSSettings):
    """Runtime-updatable settings: ``voice`` (from ``TTSSettings``) and ``speed`` (0.5-2.0)."""

    speed: float | NotGiven | None = field(default_factory=lambda: NOT_GIVEN)


@dataclass(slots=True, eq=False)
class _Turn:
    """One audio context's text on its way through the engine; turns run one at a time, in order."""

    context_id: str
    #: text that arrived before the engine started this turn
    pending: list[str] = field(default_factory=list)
    flushed: bool = False
    #: the engine's turn id once started
    turn_id: int | None = None
    #: loop time at which the turn's first frame was handed on (for pacing)
    first_frame_s: float | None = None
    #: turn sample at which the audio context last (re)started: word times count from there
    context_origin: int = 0


class WarmlineTTSService(TTSService):
    """A Pipecat ``TTSService`` over one persistent Warmline engine session.

    Pass ``runtime`` to share one warm model (and its worker threads) between many calls; the
    caller then starts and closes it. Pass ``backend`` to share a model but give this service
    its own runtime. With neither, the service builds ``backend_name`` and owns its runtime.
    At ``StartFrame`` the model is loaded off the event loop and the session opens at the
    pipeline's output sample rate (8000, 16000, 24000 or 48000 Hz).
    """

    Settings = WarmlineTTSSettings
    _settings: WarmlineTTSSettings

    def __init__(
        self,
        *,
        voice: str | None = None,
        speed: float | None = None,
        runtime: EngineRuntime | None = None,
        backend: Backend | None = None,
        backend_name: str = "hibari",
        session_config: SessionConfig | None = None,
        max_lead_s: float | None = DEFAULT_MAX_LEAD_S,
        settings: WarmlineTTSSettings | None = None,
        **kwargs: Any,
    ) -> None:
        if runtime is not None and backend is not None:
            raise ValueError("pass either runtime or backend, not both")
        self._backend = runtime.backend if runtime is not None else backend or create_backend(backend_name)
        self._runtime = runtime
        self._owns_runtime = runtime is None
        self._session_config = session_config or SessionConfig()
        self._max_lead_s = max_lead_s
        defaults = WarmlineTTSSettings(
            model=self._backend.name,
            voice=voice or self._session_config.voice or self._backend.default_voice,
            language=None,
            speed=float(speed) if speed is not None else self._session_config.speed,
        )
        if settings is not None:
            defaults.apply_update(settings)
        kwargs.setdefault("text_aggregation_mode", TextAggregationMode.TOKEN)
        super().__init__(
            push_text_frames=False,
            push_stop_frames=False,
            push_start_frame=True,
            pause_frame_processing=False,
            settings=defaults,
            **kwargs,
        )
        self._session: RuntimeSession | None = None
        self._reader: asyncio.Task[None] | None = None
        self._turns: deque[_Turn] = deque()
        self._starting_turn = False
        #: the unfinished last word of the LLM text so far (see _hold_partial_word)
        self._word_tail = ""

    # -- Pipecat surface ----------------------------------------------------------------------

    def can_generate_metrics(self) -> bool:
        """TTFB, TTFA and usage metrics are reported."""
        return True

    @property
    def supports_processing_metrics(self) -> bool:
        """``run_tts`` only hands text over, so a processing time around it would mean nothing."""
        return False

    @property
    def runtime(self) -> EngineRuntime | None:
        """The runtime this service speaks through (None before ``StartFrame`` unless shared)."""
        return self._runtime

    @property
    def session(self) -> RuntimeSession | None:
        """The engine session of this call (None outside ``StartFrame``..``EndFrame``)."""
        return self._session

    async def start(self, frame: StartFrame) -> None:
        """Load the model off the loop, open the session at the output rate, start reading it."""
        await super().start(frame)
        try:
            if self._runtime is None:
                self._runtime = EngineRuntime(self._backend)
            await self._runtime.start()  # loads and warms the model on a worker thread
            await self._open_session()
        except WarmlineError as exc:
            await self.push_error(
                f"{self}: cannot start the engine: {exc}", exception=exc, force_treat_as_permanent=True
            )

    async def stop(self, frame: EndFrame) -> None:
        """Finish every queued turn, let Pipecat play it out, then close the session."""
        self._flush_all()
        await super().stop(frame)
        await self._close_session()

    async def cancel(self, frame: CancelFrame) -> None:
        """Stop producing audio now and close the session."""
        await super().cancel(frame)
        await self._close_session()

    async def cleanup(self) -> None:
        """Close the session and, if this service owns it, the runtime and its threads."""
        # TTSService.cleanup is unannotated; its signature is known, so cast instead of ignoring.
        await cast(Callable[[], Awaitable[None]], super().cleanup)()
        await self._close_session()
        if self._owns_runtime and self._runtime is not None:
            await self._runtime.aclose()
            self._runtime = None

    async def process_frame(self, frame: PipecatFrame, direction: FrameDirection) -> None:
        """Pass LLM text on in whole words; everything else is the base class's business."""
        if isinstance(frame, LLMTextFrame) and not frame.skip_tts:
            if not self._hold_partial_word(frame):
                return
        elif isinstance(frame, (LLMFullResponseEndFrame, EndFrame)) and self._word_tail:
            tail, self._word_tail = self._word_tail, ""
            await super().process_frame(LLMTextFrame(text=tail), direction)
        elif isinstance(frame, InterruptionFrame):
            self._word_tail = ""
        await super().process_frame(frame, direction)
        if isinstance(frame, InterruptionFrame):
            await self._drop_orphaned_turns()

    async def run_tts(self, text: str, context_id: str) -> AsyncGenerator[PipecatFrame | None, None]:
        """Hand ``text`` to the engine (no audio here: the reader task delivers it)."""
        self._turn_for(context_id).pending.append(text)
        await self._feed_turns()
        yield None

    async def flush_audio(self, context_id: str | None = None) -> None:
        """The context's text is complete: the engine speaks its tail and then reports ``Done``."""
        for turn in self._turns:
            if turn.context_id == context_id and not turn.flushed:
                turn.flushed = True
                if turn.turn_id is not None and self._session is not None:
                    self._verb(self._session.flush)

    async def on_audio_context_interrupted(self, context_id: str) -> None:
        """Barge-in: silence the engine at once and forget the interrupted turn."""
        await super().on_audio_context_interrupted(context_id)
        await self._drop_turns(lambda turn: turn.context_id == context_id)

    # -- text in ------------------------------------------------------------------------------

    def _hold_partial_word(self, frame: LLMTextFrame) -> bool:
        """Keep the unfinished last word back; False when nothing of ``frame`` is left to pass.

        Pipecat matches reported words against the text it was given; text cut inside a word
        would split that word across two segments. The engine never speaks half a word either,
        so holding it costs no latency.
        """
        text = self._word_tail + frame.text
        match = _LAST_WORD.search(text)  # always matches, possibly the empty string at the end
        cut = match.start() if match else len(text)
        frame.text, self._word_tail = text[:cut], text[cut:]
        return bool(frame.text)

    def _turn_for(self, context_id: str) -> _Turn:
        for turn in reversed(self._turns):
            if turn.context_id == context_id and not turn.flushed:
                return turn
        turn = _Turn(context_id)
        self._turns.append(turn)
        return turn

    async def _feed_turns(self) -> None:
        """Give the head turn's waiting text to the engine, starting the turn if it is new."""
        session = self._session
        if session is None or self._starting_turn or not self._turns:
            return
        head = self._turns[0]
        if head.turn_id is None:
            await self._start_turn(session, head)
        elif head.pending:
            text = "".join(head.pending)
            head.pending.clear()
            self._verb(session.inject, text)

    async def _start_turn(self, session: RuntimeSession, turn: _Turn) -> None:
        """Start ``turn`` on the idle engine with the current voice and speed."""
        self._starting_turn = True
        try:
            await self._apply_settings(session)
        finally:
            self._starting_turn = False
        if session is not self._session or not self._turns or self._turns[0] is not turn:
            return await self._feed_turns()  # dropped while the voice loaded
        text = "".join(turn.pending)
        turn.pending.clear()
        if not self._verb(session.start, text):
            await self._finish_turn(turn)
            return
        turn.turn_id = session.engine.turn_id
        if turn.flushed:
            self._verb(session.flush)

    def _verb(self, verb: Callable[..., None], *args: str) -> bool:
        """Call an engine verb; a refused verb is logged, never fatal to the pipeline."""
        try:
            verb(*args)
        except WarmlineError as exc:
            logger.warning(f"{self}: engine refused {verb.__name__}: {exc}")
            return False
        return True

    def _flush_all(self) -> None:
        for turn in self._turns:
            turn.flushed = True
        if self._turns and self._turns[0].turn_id is not None and self._session is not None:
            self._verb(self._session.flush)

    # -- turns out ----------------------------------------------------------------------------

    async def _drop_turns(self, doomed: Callable[[_Turn], bool]) -> None:
        """Forget the turns ``doomed`` selects; if the engine is speaking one, silence it."""
        head = self._turns[0] if self._turns else None
        self._turns = deque(t for t in self._turns if not doomed(t))
        session = self._session
        if head is not None and doomed(head) and head.turn_id is not None and session is not None:
            if session.state in (SessionState.SPEAKING, SessionState.FLUSHING):
                self._verb(session.pause)
            self._verb(session.reset)
        # An uninterruptible context queued behind the dropped one takes the engine next.
        await self._feed_turns()

    async def _drop_orphaned_turns(self) -> None:
        """After an interruption, forget turns whose audio context Pipecat has dropped."""
        await self._drop_turns(lambda turn: not self.audio_context_available(turn.context_id))

    def _desired_voice_speed(self) -> tuple[str, float]:
        voice = self._settings.voice if is_given(self._settings.voice) else None
        speed = self._settings.speed if is_given(self._settings.speed) else None
        return voice or self._backend.default_voice, float(speed) if speed is not None else 1.0

    async def _apply_settings(self, session: RuntimeSession) -> None:
        """Bring the idle session's voice and speed up to date with the service's settings."""
        voice, speed = self._desired_voice_speed()
        config = session.engine.config
        new_voice = voice if voice != (config.voice or self._backend.default_voice) else None
        new_speed = speed if speed != config.speed else None
        if new_voice is None and new_speed is None:
            return
        try:
            await session.configure(voice=new_voice, speed=new_speed)
        except WarmlineError as exc:
            await self.push_error(f"{self}: settings not applied: {exc}", exception=exc)

    async def _open_session(self) -> None:
        if self._session is not None:
            return
        assert self._runtime is not None, "start() creates the runtime"
        voice, speed = self._desired_voice_speed()
        config = replace(
            self._session_config, sample_rate=check_sample_rate(self.sample_rate), voice=voice, speed=speed
        )
        self._session = await self._runtime.open_session(config)
        self._reader = self.create_task(self._read_engine(self._session), "warmline-engine-reader")

    async def _close_session(self) -> None:
        if self._reader is not None:
            await self.cancel_task(self._reader)
            self._reader = None
        if self._session is not None:
            await self._session.aclose()
            self._session = None
        self._turns.clear()
        self._word_tail = ""

    async def _read_engine(self, session: RuntimeSession) -> None:
        """The engine's frames and events, in order, into the audio contexts they belong to."""
        async for out in session:
            try:
                await self._deliver(out)
            except Exception as exc:  # one bad item must not silence the rest of the call
                logger.exception(f"{self}: could not deliver {type(out).__name__}")
                await self.push_error(f"{self}: could not deliver engine output: {exc}", exception=exc)

    async def _deliver(self, out: Output) -> None:
        head = self._turns[0] if self._turns else None
        if head is None or head.turn_id != out.turn_id:
            return  # an interrupted or reset turn: nothing of it may reach the pipeline
        if isinstance(out, EngineFrame):
            if not out.last_in_pause:
                await self._deliver_frame(head, out)
        elif isinstance(out, Done):
            await self._finish_turn(head)
        elif isinstance(out, ErrorEvent):
            await self.push_error(f"{self}: {out.code}: {out.message}")

    async def _deliver_frame(self, turn: _Turn, frame: EngineFrame) -> None:
        await self._pace(turn, frame)
        if not self._turns or self._turns[0] is not turn:
            return  # interrupted while waiting
        ctx = turn.context_id
        if not self.audio_context_available(ctx):
            # Pipecat closes a context that stays quiet for stop_frame_timeout_s (an LLM stalled
            # mid-answer) and reopens it on the next audio; its word clock restarts there too.
            turn.context_origin = frame.sample_offset
        audio = TTSAudioRawFrame(frame.pcm16_bytes(), frame.sample_rate, 1, context_id=ctx)
        await self.append_to_audio_context(ctx, audio)
        if frame.words:
            await self._promote_words_for(ctx)
            rate = frame.sample_rate
            word_times = [(w.word, (w.start_sample - turn.context_origin) / rate) for w in frame.words]
            await self.add_word_timestamps(word_times, ctx)

    async def _pace(self, turn: _Turn, frame: EngineFrame) -> None:
        """Hand frames on no more than ``max_lead_s`` ahead of real time."""
        if self._max_lead_s is None:
            return
        now = asyncio.get_running_loop().time()
        if turn.first_frame_s is None:
            turn.first_frame_s = now
        due = turn.first_frame_s + frame.sample_offset / frame.sample_rate - self._max_lead_s
        if due > now:
            await asyncio.sleep(due - now)

    async def _promote_words_for(self, context_id: str) -> None:
        """Make the context's pending text matchable before its words are reported.

        In TOKEN mode Pipecat regroups tokens into sentences and buffers reported words until
        the sentence is complete; an interruption clears that buffer, so the words of a sentence
        the LLM was still writing would never reach the context even though they were heard.
        The engine reports only words of text it was given, and that text reaches Pipecat in
        whole words, so promoting everything pending now gives every reported word a segment.
        """
        sequencer = self._aggregated_frame_sequencer
        await self._push_sequencer_frames(await sequencer.finalize(context_id), context_id)

    async def _finish_turn(self, turn: _Turn) -> None:
        self._turns.popleft()
        await self.append_to_audio_context(turn.context_id, TTSStoppedFrame(context_id=turn.context_id))
        await self.remove_audio_context(turn.context_id)
        if self._session is not None:
            self._verb(self._session.reset)
        await self._feed_turns()


__all__ = ["DEFAULT_MAX_LEAD_S", "WarmlineTTSService", "WarmlineTTSSettings"]
