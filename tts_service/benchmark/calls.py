"""One simulated phone call on the runtime: an LLM that types and a listener that plays in real time.

The *speaker* injects a paragraph token by token at ``TOKENS_PER_S``, flushes, waits for
``Done``, resets and starts the next answer. The *listener* is the caller's ear: after a turn's
first frame it takes frame k at ``first + k * 80 ms``; a frame not there by one more frame
(the jitter allowance) is late: it is counted, and playback re-anchors on it when it comes.
Late frames are split by cause: *compute* (the frame's unit was queued or in synthesis at its
play time: the runtime fell behind) and *text-starved* (no unit was ready at play time because
its text had not arrived: the same at any number of calls).
A turn's first frame is never late; its latency (from the moment the first unit was ready to
the frame) is recorded instead.

Both coroutines run forever: the trial that starts them as named tasks cancels and awaits them.
Times are ``time.monotonic`` seconds, the runtime's own clock.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field

from tts_service.benchmark.texts import PARAGRAPHS, tokenize
from tts_service.engine.types import FRAME_MS, Done, ErrorEvent, Output, SpeechFrame
from tts_service.runtime import RuntimeSession

TOKENS_PER_S = 30.0
FRAME_S = FRAME_MS / 1000.0
#: a frame may come this much after its play time before it counts as late
JITTER_ALLOWANCE_S = FRAME_S


@dataclass(slots=True)
class CallState:
    """What a call's two tasks share, and what the trial reads back."""

    index: int
    session: RuntimeSession
    start_delay_s: float
    seed: int
    #: monotonic time the measured window opens; lateness before it is counted apart
    window_from: float
    turn_done: asyncio.Event = field(default_factory=asyncio.Event)
    unit_ready_at: float | None = None
    first_frame_at: float | None = None
    first_frame_s: list[float] = field(default_factory=list)
    frames: int = 0
    #: late while the engine had the frame's unit queued or in synthesis: a compute shortfall
    late_frames: int = 0
    #: late because the unit's text had not arrived (nothing to compute at play time)
    late_frames_text_starved: int = 0
    #: late frames of any cause while calls were still starting, before the window
    late_frames_before_window: int = 0
    turns: int = 0
    errors: int = 0


async def _sleep_until(t: float) -> None:
    await asyncio.sleep(max(0.0, t - time.monotonic()))


def _has_unit(call: CallState) -> bool:
    """Whether the turn's first unit has been handed to the workers (or already made audio)."""
    engine = call.session.engine
    return engine.job_in_flight or bool(engine.timeline.unit_spans)


async def speaker(call: CallState) -> None:
    """The LLM side of the call: answer after answer, at ``TOKENS_PER_S``, until cancelled."""
    session = call.session
    await asyncio.sleep(call.start_delay_s)
    turn = 0
    while True:
        text = PARAGRAPHS[(call.index + turn) % len(PARAGRAPHS)]
        tokens = tokenize(text, call.seed + turn)
        call.turn_done.clear()
        call.unit_ready_at = call.first_frame_at = None
        hold_due: float | None = None
        origin = time.monotonic()
        for i, token in enumerate(tokens):
            await _sleep_until(origin + i / TOKENS_PER_S)
            if call.unit_ready_at is None and hold_due is not None and _has_unit(call):
                call.unit_ready_at = hold_due  # the first-unit hold fired between two tokens
            session.inject(token)
            if call.unit_ready_at is None:
                if _has_unit(call):
                    call.unit_ready_at = time.monotonic()
                else:
                    hold_due = session.engine.next_deadline_s()
        session.flush()
        if call.unit_ready_at is None:
            call.unit_ready_at = time.monotonic()
        await call.turn_done.wait()
        if call.first_frame_at is not None and call.unit_ready_at >= call.window_from:
            call.first_frame_s.append(max(0.0, call.first_frame_at - call.unit_ready_at))
        call.turns += 1
        session.reset()
        turn += 1


async def _wait_output(session: RuntimeSession, due: float) -> Output | None:
    """The next output if it comes by ``due`` (monotonic seconds), else None."""
    item = session.next_output_nowait()
    if item is not None:
        return item
    try:
        async with asyncio.timeout(max(0.0, due - time.monotonic())):
            return await session.next_output()
    except TimeoutError:
        return None


async def listener(call: CallState) -> None:
    """The caller's ear: plays frames at 80 ms pace and counts the late ones, until cancelled."""
    session = call.session
    anchor: float | None = None  # when frame 0 of the current run played
    k = 0
    while True:
        if anchor is None:
            item: Output | None = await session.next_output()
            if isinstance(item, SpeechFrame):
                anchor = call.first_frame_at = time.monotonic()
                k = 0
        else:
            play_at = anchor + (k + 1) * FRAME_S
            await _sleep_until(play_at)
            item = session.next_output_nowait()
            # Nothing to play and nothing in synthesis: the unit's text has not arrived yet.
            starved = item is None and not session.engine.job_in_flight
            if item is None:
                item = await _wait_output(session, play_at + JITTER_ALLOWANCE_S)
            if item is None:
                if play_at < call.window_from:
                    call.late_frames_before_window += 1
                elif starved:
                    call.late_frames_text_starved += 1
                else:
                    call.late_frames += 1
                item = await session.next_output()
                anchor, k = time.monotonic(), -1  # re-anchor: this output plays now
            if isinstance(item, SpeechFrame):
                k += 1
        if isinstance(item, SpeechFrame):
            call.frames += 1
        elif isinstance(item, Done):
            anchor = None
            call.turn_done.set()
        elif isinstance(item, ErrorEvent):
            call.errors += 1
