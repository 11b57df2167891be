"""The mark ledger: items wait for the mark of the frame they follow; a clear forgets the unconfirmed."""

from __future__ import annotations

import pytest

from transports.twilio.marks import MarkLedger


def test_items_are_released_in_order_when_their_frames_mark_returns() -> None:
    """Words held behind frame 1 come out with mark 1, not before; a later mark confirms earlier frames."""
    ledger: MarkLedger[str] = MarkLedger()
    assert not ledger.hold("early") and not ledger.playing
    ledger.sent(0)
    assert ledger.hold("a")
    ledger.sent(1)
    assert ledger.hold("b") and ledger.hold("c")
    ledger.sent(2)
    assert ledger.hold("d")
    assert ledger.outstanding == 3
    assert ledger.returned(0) == ["a"]
    assert ledger.returned(2) == ["b", "c", "d"]
    assert not ledger.playing and ledger.stats.returned == 3


def test_clear_drops_the_unconfirmed_and_ignores_the_echoes_of_what_it_dropped() -> None:
    """After a clear the held items come back as dropped, and the marks echoed for them do nothing."""
    ledger: MarkLedger[str] = MarkLedger()
    for seq, word in enumerate(["one", "two", "three"]):
        ledger.sent(seq)
        ledger.hold(word)
    assert ledger.returned(0) == ["one"]
    assert ledger.clear() == ["two", "three"]
    assert not ledger.playing
    assert ledger.returned(1) == [] and ledger.returned(2) == []
    assert ledger.stats.cleared == 2 and ledger.stats.cleared_echoes == 2
    ledger.sent(3)
    ledger.hold("four")
    assert ledger.returned(3) == ["four"]


def test_unknown_marks_are_counted_not_trusted() -> None:
    """A mark for a frame never sent releases nothing."""
    ledger: MarkLedger[str] = MarkLedger()
    ledger.sent(0)
    ledger.hold("x")
    assert ledger.returned(7) == []
    assert ledger.stats.unknown_marks == 1 and ledger.playing


def test_a_carrier_that_never_echoes_cannot_grow_the_ledger_without_bound() -> None:
    """Beyond max_outstanding frames the oldest is taken as played and its items released."""
    ledger: MarkLedger[int] = MarkLedger(max_outstanding=2)
    released: list[int] = []
    for seq in range(5):
        released += ledger.sent(seq)
        ledger.hold(seq)
    assert released == [0, 1, 2] and ledger.outstanding == 2
    assert ledger.stats.assumed_played == 3


def test_frame_numbers_must_grow() -> None:
    """Sending a frame number twice is a bug in the caller and raises."""
    ledger: MarkLedger[str] = MarkLedger()
    ledger.sent(3)
    with pytest.raises(ValueError, match="must grow"):
        ledger.sent(3)
