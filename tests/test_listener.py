"""The listener clock on a fake clock: frames run at most `lead` ahead of real time; late ones counted."""

from __future__ import annotations

import pytest

from tts_service.engine.listener import ListenerClock

FRAME_S = 0.08


def send_when_due(pacer: ListenerClock, now: float) -> float:
    """Advance ``now`` to when the next frame may go, send it, return the new now."""
    now += pacer.delay_s(now)
    assert not pacer.sent(now, FRAME_S)
    return now


def test_first_lead_plus_one_frames_go_at_once_then_one_per_frame() -> None:
    """Frame k of a stream is due at t0 + (k - lead) * 80 ms."""
    pacer = ListenerClock(lead_s=2 * FRAME_S)
    now, times = 10.0, []
    for _ in range(8):
        now = send_when_due(pacer, now)
        times.append(round(now - 10.0, 6))
    assert times == [0.0, 0.0, 0.0, 0.08, 0.16, 0.24, 0.32, 0.4]


def test_lead_zero_is_exact_real_time() -> None:
    """With no lead, each frame leaves when the previous one has played."""
    pacer = ListenerClock(lead_s=0 * FRAME_S)
    now = 0.0
    sent = [now := send_when_due(pacer, now) for _ in range(4)]
    assert sent == pytest.approx([0.0, 0.08, 0.16, 0.24])


def test_a_frame_after_the_listener_ran_dry_is_late_and_restarts_the_clock() -> None:
    """Mid-stream, a frame sent after the playback deadline is late; pacing restarts from it."""
    pacer = ListenerClock(lead_s=2 * FRAME_S)
    for _ in range(3):
        pacer.sent(0.0, FRAME_S)  # play_end 0.24
    assert not pacer.sent(0.2, FRAME_S)  # still before the deadline
    assert pacer.sent(1.0, FRAME_S)  # after 0.32: the listener was dry
    assert pacer.play_end_s == pytest.approx(1.08)
    assert pacer.delay_s(1.0) == 0.0  # rebuild the lead at once


def test_after_a_stream_break_running_dry_is_not_late() -> None:
    """Once a turn ends (or pauses), the next frame after a silence is not late."""
    pacer = ListenerClock(lead_s=2 * FRAME_S)
    pacer.sent(0.0, FRAME_S)
    pacer.stream_break()
    assert not pacer.sent(5.0, FRAME_S)
    assert pacer.sent(9.0, FRAME_S)  # but the new stream is watched again


def test_a_new_turn_continues_the_listeners_clock_when_it_comes_in_time() -> None:
    """Back-to-back turns keep pacing: no burst beyond the lead at a turn boundary."""
    pacer = ListenerClock(lead_s=2 * FRAME_S)
    now = 0.0
    for _ in range(5):
        now = send_when_due(pacer, now)
    pacer.stream_break()
    assert pacer.delay_s(now) == pytest.approx(FRAME_S)


def test_a_negative_lead_is_refused() -> None:
    """The lead may be zero (exact real time), never negative."""
    with pytest.raises(ValueError):
        ListenerClock(lead_s=-0.01)


def test_restart_forgets_what_the_listener_held() -> None:
    """After a clear or a pause the next frame is due at once and starts a fresh stream."""
    pacer = ListenerClock(lead_s=2 * FRAME_S)
    for _ in range(6):
        pacer.sent(0.0, FRAME_S)
    assert pacer.delay_s(0.0) == pytest.approx(4 * FRAME_S)
    pacer.restart()
    assert pacer.play_end_s is None and pacer.delay_s(0.0) == 0.0
    assert not pacer.sent(3.0, FRAME_S)  # not late: nothing was playing
