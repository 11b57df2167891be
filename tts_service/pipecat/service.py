"""``WarmlineTTSService``: the persistent Warmline engine as a drop-in Pipecat TTS service.

    tts = WarmlineTTSService(voice="heart")   # where the pipeline had another TTS service

How Pipecat's events map onto the engine's verbs (one ``RuntimeSession`` per service):

=============================  ===================================================================
Pipecat                        engine
=============================  ===================================================================
``StartFrame``                 the model loads off the loop and says one warm-up turn at the
                               output rate (``tts_service.runtime.warmup``); the session opens
LLM token (TOKEN aggregation)  ``run_tts`` -> ``inject`` at once; the engine decides the phrasing
``LLMFullResponseEndFrame``    ``flush_audio`` -> ``flush``; on ``Done``: ``TTSStoppedFrame``, ``reset``
``InterruptionFrame``          ``on_audio_context_interrupted`` -> ``pause`` + ``reset``; the turn's
                               frames still on their way are dropped by turn id, and so is the
                               rest of the interrupted LLM answer (``text.StaleAnswer``)
``TTSSpeakFrame``              a turn of its own, queued behind the running one
``TTSUpdateSettingsFrame``     voice, language and speed applied before the next turn starts
``SpeculativeAnswerFrame``     the next answer is made held: ``start(held=True)``, audio withheld
``UserStoppedSpeakingFrame``   the caller's turn is confirmed: ``release`` every held answer, whose
                               frames go out at once (an ``InterruptionFrame`` drops it unheard)
``BotOutputPauseFrame``        speech over the bot, not yet judged: ``pause``, the rest kept
``BotOutputResumeFrame``       it was a backchannel or a noise: ``resume`` from the next word
``BotOutputDuckFrame``         a backchannel so far: ``resume`` too (the transport plays it quieter)
=============================  ===================================================================

The last five come from ``agent.turn_taking`` (``tts_service.pipecat.frames`` defines them;
``held`` acts on them); without them the service behaves as any Pipecat TTS.

The engine runs beside the pipeline: a task named after the service reads the session and hands
every 80 ms frame to the turn's audio context as one ``TTSAudioRawFrame``, followed by the words
whose audio starts in it, through ``add_word_timestamps`` (seconds into the audio context).
Pipecat turns those into ``TTSTextFrame`` s in order with the audio; they leave the service
without a pts (``compat.FramesInAudioOrder``), so any output transport releases each
only once the audio before it has been written, however far its writes fall behind the clock,
and the assistant aggregator records what was released: after a barge-in the context holds the
words whose audio began playing. Two details keep that exact: LLM tokens reach Pipecat's word
matcher only in whole words (``text.WordTail``), and the pending text is promoted to a
matchable segment before its words are reported (``_deliver_frame``), so the words of a
sentence the LLM has not finished are neither held back nor lost on interruption.

This module must never run model compute or load weights on the event loop, never yield audio
from ``run_tts`` (that would block the processor and queue tokens behind synthesis), never let a
frame of an interrupted turn reach the pipeline, and never swallow ``CancelledError``. Its helpers
are its neighbours in ``tts_service/pipecat/``: ``text`` (which LLM text is spoken), ``held`` (the
turn-taking frames), ``settings`` (voice and speed), ``frames`` and ``compat``; that folder is the
only part of ``tts_service`` that imports pipecat (``docs/ARCHITECTURE.md``).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, Awaitable, Callable, Mapping
from dataclasses import replace
from typing import Any, cast

from loguru import logger
from pipecat.frames.frames import (
    CancelFrame,
    EndFrame,
    InterruptionFrame,
    StartFrame,
    TTSAudioRawFrame,
    TTSStoppedFrame,
)
from pipecat.frames.frames import Frame as PipecatFrame
from pipecat.processors.frame_processor import FrameDirection
from pipecat.services.tts_service import TextAggregationMode, TTSService

from tts_service.backends import create_backend
from tts_service.engine.listener import ListenerClock
from tts_service.engine.ports import Backend
from tts_service.engine.reading.lexicon import Lexicon, as_lexicon
from tts_service.engine.session import SessionConfig
from tts_service.engine.turns import Conversation, Turn
from tts_service.engine.types import Done, ErrorEvent, Output, SpeechFrame, check_sample_rate
from tts_service.errors import WarmlineError
from tts_service.pipecat.compat import FramesInAudioOrder, promote_pending_words
from tts_service.pipecat.held import HeldAnswers
from tts_service.pipecat.settings import WarmlineTTSSettings
from tts_service.pipecat.text import AnswerText
from tts_service.remote.session import RemoteEngine
from tts_service.runtime import EngineRuntime
from tts_service.runtime.warmup import warm_runtime
from tts_service.sessions import AdapterSession, SessionSource

#: how far ahead of real time the service hands audio to Pipecat; the engine computes at most
#: this much (plus its own look-ahead) before the listener needs it, so pause stays cheap and a
#: shared runtime serves the call that is about to starve first
DEFAULT_MAX_LEAD_S = 1.0


class WarmlineTTSService(TTSService, FramesInAudioOrder):
    """A Pipecat ``TTSService`` over one persistent Warmline engine session.

    Pass ``runtime`` to share one warm model (and its worker threads) between many calls; the
    caller then starts and closes it. Pass ``backend`` to share a model but give this service
    its own runtime. With neither, the service builds ``backend_name`` and owns its runtime.
    At ``StartFrame`` the model is loaded off the event loop and warmed with one turn at the
    pipeline's output sample rate (8000, 16000, 24000 or 48000 Hz), so the first answer does not
    wait for it (a shared runtime already started is warm already); then the session opens.

    Pass ``url`` (and ``token``) instead to speak to a ``warmline serve`` elsewhere (remote
    mode, ``tts_service.remote``): one WebSocket per call, the same frames, words and verbs, so
    everything above holds and the bot does not change. A connection that drops ends the turn
    in progress with a Pipecat error (words never received are never reported, so the context
    keeps only what was heard) and is replaced, with backoff, before the next turn.
    """

    Settings = WarmlineTTSSettings
    _settings: WarmlineTTSSettings

    def __init__(
        self,
        *,
        voice: str | None = None,
        speed: float | None = None,
        language: str | None = None,
        runtime: EngineRuntime | None = None,
        backend: Backend | None = None,
        backend_name: str = "hibari",
        url: str | None = None,
        token: str | None = None,
        session_config: SessionConfig | None = None,
        max_lead_s: float | None = DEFAULT_MAX_LEAD_S,
        settings: WarmlineTTSSettings | None = None,
        lexicon: Lexicon | Mapping[str, str] | None = None,
        **kwargs: Any,
    ) -> None:
        if runtime is not None and backend is not None:
            raise ValueError("pass either runtime or backend, not both")
        if url is not None and (runtime is not None or backend is not None):
            raise ValueError("pass url (a remote engine) or runtime/backend (a local one), not both")
        self._source: SessionSource | None
        if url is not None:
            self._source = RemoteEngine(url, token=token)
            model, self._default_voice = "warmline-remote", None
            self._local_backend: Backend | None = None
        else:
            local = runtime.backend if runtime is not None else backend or create_backend(backend_name)
            self._source = runtime
            self._backend = self._local_backend = local
            model, self._default_voice = local.name, local.default_voice
        self._owns_source = runtime is None
        self._session_config = session_config or SessionConfig()
        if lexicon is not None:
            symbols = self._backend.capabilities.phoneme_symbols if url is None else ()
            self._session_config = replace(self._session_config, lexicon=as_lexicon(lexicon, symbols))
        self._max_lead_s = max_lead_s
        defaults = WarmlineTTSSettings(
            model=model,
            voice=voice or self._session_config.voice or self._default_voice,
            language=language,
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
        self._session: AdapterSession | None = None
        self._reader: asyncio.Task[None] | None = None
        #: keeps the audio contexts of held and paused turns open (``held.silent_keys``)
        self._keepalive: asyncio.Task[None] | None = None
        #: the one turn model over the session (one turn per audio context), from StartFrame
        self._turns: Conversation | None = None
        #: the sample of each turn at which its audio context last (re)opened: word times count from it
        self._context_origin: dict[Turn, int] = {}
        #: the listener of what this service hands on; it runs at most ``max_lead_s`` ahead of it
        self._listener = ListenerClock(max_lead_s or 0.0)
        self._starting_turn = False
        #: whether the next answer is speculative, and the turn-taking frames (``held``)
        self._held = HeldAnswers()
        #: which LLM text is passed on, in whole words (``text``)
        self._text_in = AnswerText()
        self._warm = False
        #: the language last sent to a remote engine's session (it resolves a language itself)
        self._remote_language: tuple[AdapterSession, str | None] | None = None

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
        """The local runtime this service speaks through (None before ``StartFrame`` unless
        shared; always None in remote mode)."""
        return self._source if isinstance(self._source, EngineRuntime) else None

    @property
    def warm(self) -> bool:
        """Whether the local model is loaded and warm (from ``StartFrame``); False in remote mode,
        where the server keeps its own model warm."""
        return self._warm

    @property
    def session(self) -> AdapterSession | None:
        """The engine session of this call (None outside ``StartFrame``..``EndFrame``): a
        ``RuntimeSession``, or in remote mode a ``RemoteSession``."""
        return self._session

    async def start(self, frame: StartFrame) -> None:
        """Load and warm the model off the loop, open the session at the output rate, read it."""
        await super().start(frame)
        try:
            if self._source is None:
                self._source = EngineRuntime(self._backend)
            await self._start_source()
            await self._open_session()
        except WarmlineError as exc:
            await self.push_error(
                f"{self}: cannot start the engine: {exc}", exception=exc, force_treat_as_permanent=True
            )

    async def stop(self, frame: EndFrame) -> None:
        """Finish every queued turn, let Pipecat play it out, then close the session."""
        if self._turns is not None:
            self._turns.finish_all()
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
        if self._owns_source and self._source is not None:
            await self._source.aclose()
            if isinstance(self._source, EngineRuntime):  # a remote engine keeps no threads
                self._source = None

    async def process_frame(self, frame: PipecatFrame, direction: FrameDirection) -> None:
        """Pass LLM text on in whole words and act on the turn-taking frames (``held``);
        everything else is the base class's business."""
        admitted = self._text_in.admit(frame)
        if not admitted:
            return  # the rest of an interrupted answer, or a token that is all unfinished word
        *held_word, frame = admitted
        for item in held_word:  # the answer's last word, complete now that it ended
            await super().process_frame(item, direction)
        if self._held.handles(frame) and self._held.apply(frame, self._turns, self._verb):
            self._listener.restart()  # paused: the listener's clock starts again on resume
        await super().process_frame(frame, direction)
        if isinstance(frame, InterruptionFrame):
            await self._drop_orphaned_turns()

    async def run_tts(self, text: str, context_id: str) -> AsyncGenerator[PipecatFrame | None, None]:
        """Hand ``text`` to the engine (no audio here: the reader task delivers it)."""
        turns = self._turns
        if turns is not None:
            turn = turns.find(context_id)
            if turn is None:
                turn = turns.open(key=context_id, now_s=self._now(), held=self._held.take_next_held())
            if self._verb(turns.add_text, turn, text):
                await self._start_next()
        yield None

    async def flush_audio(self, context_id: str | None = None) -> None:
        """The context's text is complete: the engine speaks its tail and then reports ``Done``."""
        if self._turns is not None:
            for turn in self._turns.turns:
                if turn.key == context_id:
                    self._verb(self._turns.finish, turn)

    async def on_audio_context_interrupted(self, context_id: str) -> None:
        """Barge-in: silence the engine at once and forget the interrupted turn."""
        await super().on_audio_context_interrupted(context_id)
        await self._drop_turns(lambda turn: turn.key == context_id)

    # -- text in ------------------------------------------------------------------------------

    async def _start_next(self) -> None:
        """Start the head turn once the engine is free, with the current voice and speed."""
        turns = self._turns
        session = self._session
        if turns is None or session is None or self._starting_turn:
            return
        head = turns.startable()
        if head is None:
            return
        self._starting_turn = True
        try:
            await self._apply_settings(session)
        finally:
            self._starting_turn = False
        if session is not self._session or turns.startable() is not head:
            return await self._start_next()  # dropped while the voice loaded
        if not self._verb(turns.start, head):
            turns.drop(lambda turn: turn is head)
            await self._end_context(head)
            await self._start_next()

    def _verb(self, verb: Callable[..., object], *args: object) -> bool:
        """Call a turn-model verb; a refused one is logged, never fatal to the pipeline."""
        try:
            verb(*args)
        except WarmlineError as exc:
            logger.warning(f"{self}: engine refused {getattr(verb, '__name__', verb)}: {exc}")
            return False
        return True

    # -- turns out ----------------------------------------------------------------------------

    async def _drop_turns(self, doomed: Callable[[Turn], bool]) -> None:
        """Forget the turns ``doomed`` selects; if the engine is speaking one, silence it."""
        if self._turns is None:
            return
        for turn in self._turns.drop(doomed):
            self._context_origin.pop(turn, None)
        self._listener.restart()
        # An uninterruptible context queued behind the dropped one takes the engine next.
        await self._start_next()

    async def _drop_orphaned_turns(self) -> None:
        """After an interruption, forget turns whose audio context Pipecat has dropped."""
        await self._drop_turns(lambda turn: not self.audio_context_available(str(turn.key)))

    async def _apply_settings(self, session: AdapterSession) -> None:
        """Bring the idle session's voice and speed up to date with the service's settings."""
        try:
            change = self._settings.changes_for(session.config, self._default_voice, self._local_backend)
            language = None
            if self._local_backend is None:  # a remote engine picks the voice for a language itself
                asked = self._settings.language_code()
                language = asked if (session, asked) != self._remote_language else None
            if change is None and language is None:
                return
            voice, speed = change or (None, None)
            await session.configure(voice=voice, speed=speed, language=language)
            if language is not None:
                self._remote_language = (session, language)
        except WarmlineError as exc:
            await self.push_error(f"{self}: settings not applied: {exc}", exception=exc)

    def _call_config(self) -> SessionConfig:
        """This call's session settings: the output rate, the voice and speed of the settings."""
        voice, speed = self._settings.voice_speed(self._default_voice, self._local_backend)
        return replace(
            self._session_config, sample_rate=check_sample_rate(self.sample_rate), voice=voice, speed=speed
        )

    async def _start_source(self) -> None:
        """Start the engine; a local runtime not yet started loads and says the warm-up turn."""
        assert self._source is not None, "start() creates the runtime"
        runtime = self.runtime
        if runtime is None:
            await self._source.start()  # a remote engine: nothing to load here
            return
        if not runtime.started:
            await warm_runtime(runtime, self._call_config())
        self._warm = True

    async def _open_session(self) -> None:
        if self._session is not None:
            return
        assert self._source is not None, "start() creates the runtime"
        self._session = await self._source.open_session(self._call_config())
        # The bot's turn is over at each Done: the next answer starts from a fresh prefix.
        self._turns = Conversation(self._session, reset_after_done=True)
        self._reader = self.create_task(self._read_engine(self._session), "warmline-engine-reader")
        self._keepalive = self.create_task(self._keep_silent_contexts(), "warmline-held-keepalive")

    async def _keep_silent_contexts(self) -> None:
        """Refresh the held and paused turns' audio contexts well within Pipecat's timeout."""
        while True:
            await asyncio.sleep(self._stop_frame_timeout_s / 3)
            for key in self._held.silent_keys(self._turns):
                self._refresh_audio_context(key)

    async def _close_session(self) -> None:
        if self._keepalive is not None:
            await self.cancel_task(self._keepalive)
            self._keepalive = None
        if self._reader is not None:
            await self.cancel_task(self._reader)
            self._reader = None
        if self._session is not None:
            await self._session.aclose()
            self._session = None
        self._turns = None
        self._context_origin.clear()
        self._text_in.clear()

    async def _read_engine(self, session: AdapterSession) -> None:
        """The engine's frames and events, in order, into the audio contexts they belong to."""
        async for out in session:
            try:
                await self._deliver(out)
            except Exception as exc:  # one bad item must not silence the rest of the call
                logger.exception(f"{self}: could not deliver {type(out).__name__}")
                await self.push_error(f"{self}: could not deliver engine output: {exc}", exception=exc)

    async def _deliver(self, out: Output) -> None:
        turn = self._turns.route(out) if self._turns is not None else None
        if turn is None:
            return  # an interrupted or reset turn: nothing of it may reach the pipeline
        if isinstance(out, SpeechFrame):
            if not out.last_in_pause:
                await self._deliver_frame(turn, out)
        elif isinstance(out, Done):
            self._listener.stream_break()
            await self._end_context(turn)
            await self._start_next()
        elif isinstance(out, ErrorEvent):
            await self.push_error(f"{self}: {out.code}: {out.message}")

    async def _deliver_frame(self, turn: Turn, frame: SpeechFrame) -> None:
        await self._pace()
        turns = self._turns
        if turns is None or turns.running is not turn:
            return  # interrupted while waiting
        ctx = str(turn.key)
        if not self.audio_context_available(ctx):
            # Pipecat closes a context that stays quiet for stop_frame_timeout_s (an LLM stalled
            # mid-answer) and reopens it on the next audio; its word clock restarts there too.
            self._context_origin[turn] = frame.sample_offset
        now = self._now()
        turns.heard(turn, frame, now_s=now)
        self._listener.sent(now, frame.num_samples / frame.sample_rate)
        audio = TTSAudioRawFrame(frame.pcm16_bytes(), frame.sample_rate, 1, context_id=ctx)
        await self.append_to_audio_context(ctx, audio)
        if frame.words:
            # in TOKEN mode Pipecat buffers reported words until their sentence is complete, and an
            # interruption clears that buffer: promoting the pending text (whole words only, see
            # text.WordTail) gives each word of a sentence still being written a segment
            await promote_pending_words(self, ctx)
            rate, origin = frame.sample_rate, self._context_origin.get(turn, 0)
            word_times = [(w.word, (w.start_sample - origin) / rate) for w in frame.words]
            await self.add_word_timestamps(word_times, ctx)

    async def _pace(self) -> None:
        """Hand frames on no more than ``max_lead_s`` ahead of the listener's real time."""
        if self._max_lead_s is None:
            return
        delay_s = self._listener.delay_s(self._now())
        if delay_s > 0:
            await asyncio.sleep(delay_s)

    def _now(self) -> float:
        return asyncio.get_running_loop().time()

    async def _end_context(self, turn: Turn) -> None:
        """The turn is over (spoken, or refused): close its audio context."""
        ctx = str(turn.key)
        self._context_origin.pop(turn, None)
        await self.append_to_audio_context(ctx, TTSStoppedFrame(context_id=ctx))
        await self.remove_audio_context(ctx)


__all__ = ["DEFAULT_MAX_LEAD_S", "WarmlineTTSService", "WarmlineTTSSettings"]
