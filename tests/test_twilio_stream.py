"""Twilio stream state machines: the order of a carrier's events, and the bot's 80 ms framing."""

from __future__ import annotations

import pytest
from test_twilio_protocol import (
    GOLDEN_CONNECTED,
    GOLDEN_DTMF,
    GOLDEN_MARK,
    GOLDEN_MEDIA,
    GOLDEN_START,
    GOLDEN_STOP,
    SID,
)

from transports.twilio import protocol as tp
from transports.twilio import stream as ts


def stream_at(state: ts.StreamState) -> ts.InboundStream:
    stream = ts.InboundStream()
    if state is not ts.StreamState.AWAIT_CONNECTED:
        stream.receive(GOLDEN_CONNECTED)
    if state is ts.StreamState.STREAMING:
        stream.receive(GOLDEN_START)
    return stream


def test_a_whole_stream_in_order_is_accepted_and_ends_stopped() -> None:
    """connected, start, media, mark, dtmf, stop: each accepted, start kept, the stream ends stopped."""
    stream = ts.InboundStream()
    for message in (GOLDEN_CONNECTED, GOLDEN_START, GOLDEN_MEDIA, GOLDEN_MARK, GOLDEN_DTMF, GOLDEN_STOP):
        assert stream.receive(message) == tp.parse_inbound(message)
    assert stream.start == tp.parse_inbound(GOLDEN_START)
    assert stream.state is ts.StreamState.STOPPED


def test_framer_sends_an_80ms_frame_as_four_160_byte_payloads_then_its_mark() -> None:
    """One 640-byte frame is four 20 ms media messages and the mark f<seq>; seq runs on across frames."""
    framer = ts.OutboundFramer(SID)
    frame = bytes(i % 256 for i in range(tp.FRAME_BYTES))
    for seq in range(3):
        messages, name = framer.frame(frame)
        parsed = [tp.parse_outbound(m) for m in messages]
        assert name == f"f{seq}" and framer.mark_seq(name) == seq
        assert [type(p) for p in parsed] == [tp.OutboundMedia] * 4 + [tp.OutboundMark]
        assert b"".join(p.payload for p in parsed if isinstance(p, tp.OutboundMedia)) == frame
        assert {len(p.payload) for p in parsed if isinstance(p, tp.OutboundMedia)} == {160}
    assert framer.frames_sent == 3
    assert framer.mark_seq("other") is None and framer.mark_seq("f") is None
    with pytest.raises(ValueError, match="640"):
        framer.frame(bytes(639))


@pytest.mark.parametrize(
    ("state", "message", "words"),
    [
        (ts.StreamState.AWAIT_CONNECTED, GOLDEN_START, "start before connected"),
        (ts.StreamState.AWAIT_START, GOLDEN_CONNECTED, "connected received twice"),
        (ts.StreamState.AWAIT_START, GOLDEN_MEDIA, "media before start"),
        (ts.StreamState.AWAIT_START, GOLDEN_MARK, "mark before start"),
        (ts.StreamState.STREAMING, GOLDEN_START, "start received twice"),
        (ts.StreamState.STREAMING, GOLDEN_MEDIA.replace(SID, "MZother"), "for stream 'MZother'"),
        (ts.StreamState.STREAMING, GOLDEN_MEDIA.replace('"inbound"', '"outbound"'), "track 'outbound'"),
        (
            ts.StreamState.STREAMING,
            GOLDEN_MEDIA.replace('"sequenceNumber": "3"', '"sequenceNumber": "1"'),
            "after 1",
        ),
    ],
)
def test_out_of_order_events_raise_and_leave_the_stream_as_it_was(
    state: ts.StreamState, message: str, words: str
) -> None:
    """An event at the wrong time raises OutOfOrderError and does not change the stream's state."""
    stream = stream_at(state)
    with pytest.raises(tp.OutOfOrderError, match=words):
        stream.receive(message)
    assert stream.state is state


def test_media_chunks_must_grow_and_nothing_may_follow_stop() -> None:
    """A repeated chunk number and any message after stop are out of order."""
    stream = stream_at(ts.StreamState.STREAMING)
    stream.receive(GOLDEN_MEDIA)
    again = GOLDEN_MEDIA.replace('"sequenceNumber": "3"', '"sequenceNumber": "4"')
    with pytest.raises(tp.OutOfOrderError, match="chunk 1 after chunk 1"):
        stream.receive(again)
    stream.receive(GOLDEN_STOP)
    with pytest.raises(tp.OutOfOrderError, match="after stop"):
        stream.receive(GOLDEN_MARK.replace('"4"', '"9"'))
