"""Asterisk AudioSocket: the codec's golden bytes both ways, its order and its bounds, and the TCP
server's admission (handshake timeout, malformed bytes, the call limit, the drain) on 127.0.0.1."""

from __future__ import annotations

import asyncio
import logging
import uuid

import pytest

from transports.asterisk import audiosocket as au
from transports.asterisk.audiosocket_call import AudioSocketCall
from transports.asterisk.audiosocket_server import AudioSocketServer, AudioSocketSettings
from transports.drain import Drain
from transports.media_stream.server import CallSlots

CALL_ID = uuid.UUID("40b38a1e-6aa6-4b1c-9a29-2e4a7f3c0d11")
#: the UUID message Asterisk opens every connection with (kind 0x01, length 16, the UUID's bytes)
UUID_MESSAGE = bytes.fromhex("010010") + bytes.fromhex("40b38a1e6aa64b1c9a292e4a7f3c0d11")


def test_golden_bytes_out() -> None:
    assert au.encode_hangup() == b"\x00\x00\x00"
    assert au.encode_uuid(CALL_ID) == UUID_MESSAGE
    assert au.encode_dtmf("#") == b"\x03\x00\x01#"
    assert au.encode_audio(b"\x01\x00\xff\x7f") == b"\x10\x00\x04\x01\x00\xff\x7f"
    assert au.encode_audio(bytes(320))[:3] == b"\x10\x01\x40"  # 20 ms: 320 bytes
    with pytest.raises(ValueError):
        au.encode_audio(b"\x01")
    with pytest.raises(ValueError):
        au.encode_dtmf("x")


def test_golden_bytes_in_split_anywhere() -> None:
    wire = (
        UUID_MESSAGE
        + b"\x10\x00\x04\x01\x00\xff\x7f"
        + b"\x03\x00\x015"
        + b"\xff\x00\x01\x02"
        + b"\x00\x00\x00"
    )
    expected: list[au.Message] = [
        au.Uuid(CALL_ID),
        au.Audio(b"\x01\x00\xff\x7f"),
        au.Dtmf("5"),
        au.Error(2),
        au.Hangup(),
    ]
    assert au.AudioSocketStream().feed(wire) == expected
    for cut in range(1, len(wire)):
        stream = au.AudioSocketStream()
        assert stream.feed(wire[:cut]) + stream.feed(wire[cut:]) == expected
    byte_by_byte = au.AudioSocketStream()
    assert [m for b in wire for m in byte_by_byte.feed(bytes([b]))] == expected
    assert byte_by_byte.call_id == CALL_ID


@pytest.mark.parametrize(
    ("wire", "why"),
    [
        (b"\x10\x00\x02\x00\x00", "before the UUID"),
        (b"\x01\x00\x04abcd", "a UUID of 4 bytes"),
        (UUID_MESSAGE + UUID_MESSAGE, "a second UUID"),
        (UUID_MESSAGE + b"\x10\x00\x03\x00\x00\x00", "not whole 16-bit samples"),
        (UUID_MESSAGE + b"\x03\x00\x01x", "is not one digit"),
        (UUID_MESSAGE + b"\x03\x00\x0212", "is not one digit"),
        (UUID_MESSAGE + b"\x12\x00\x02\x00\x00", "kind 0x12 is not one"),  # 16 kHz audio
        (UUID_MESSAGE + b"\x00\x00\x00" + b"\x10\x00\x02\x00\x00", "after the hangup"),
    ],
)
def test_malformed_input_raises_and_names_the_fault(wire: bytes, why: str) -> None:
    with pytest.raises(au.AudioSocketError, match=why) as raised:
        au.AudioSocketStream().feed(wire)
    assert raised.value.code == "audiosocket_protocol"


def test_an_incomplete_message_is_held_not_parsed() -> None:
    stream = au.AudioSocketStream()
    assert stream.feed(UUID_MESSAGE + b"\x10\x01\x40" + bytes(319)) == [au.Uuid(CALL_ID)]
    assert stream.feed(b"\x00") == [au.Audio(bytes(320))]


# -- the server -------------------------------------------------------------------------------


class Server:
    """An AudioSocket server on 127.0.0.1 whose bot waits for its call to end."""

    def __init__(self, *, max_calls: int = 1, drain: Drain | None = None) -> None:
        self.calls: list[AudioSocketCall] = []
        settings = AudioSocketSettings(handshake_timeout_s=0.3, media_timeout_s=1.0)
        self.server = AudioSocketServer(
            self._bot, settings, slots=CallSlots(max_calls=max_calls), drain=drain
        )

    async def _bot(self, call: AudioSocketCall) -> None:
        self.calls.append(call)
        await call.ended.wait()

    async def connect(self) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        return await asyncio.open_connection("127.0.0.1", self.server.port)


async def _until_a_call(server: Server, calls: int = 1) -> None:
    for _ in range(300):
        if len(server.calls) >= calls:
            return
        await asyncio.sleep(0.01)
    raise AssertionError("the call never reached the bot")


async def _until_closed(reader: asyncio.StreamReader) -> bytes:
    async with asyncio.timeout(5):
        return await reader.read()


def test_the_server_refuses_what_is_not_a_call_in_one_log_line_each(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="warmline")

    async def main() -> None:
        server = Server()
        await server.server.start("127.0.0.1", 0)
        try:
            reader, writer = await server.connect()  # never sends its UUID
            assert await _until_closed(reader) == au.encode_hangup()
            writer.close()
            reader, writer = await server.connect()  # audio first
            writer.write(au.encode_audio(bytes(320)))
            assert await _until_closed(reader) == au.encode_hangup()
            writer.close()
            reader, writer = await server.connect()  # a call, then bytes that are not AudioSocket
            writer.write(au.encode_uuid(CALL_ID))
            await _until_a_call(server)
            writer.write(b"\x42\x00\x00")
            assert await _until_closed(reader) == au.encode_hangup()
            writer.close()
        finally:
            await server.server.aclose()
        assert [c.end_reason.value if c.end_reason else None for c in server.calls] == ["protocol_error"]

    asyncio.run(main())
    lines = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(lines) == 3, lines
    assert "no UUID within 0.3 s" in lines[0]
    assert "before the UUID" in lines[1]
    assert "kind 0x42" in lines[2]


def test_a_silent_call_times_out_and_a_closed_one_ends_each_in_one_log_line(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, logger="warmline")

    async def main() -> None:
        server = Server(max_calls=2)
        await server.server.start("127.0.0.1", 0)
        try:
            silent_reader, silent = await server.connect()  # a UUID, then nothing for over 1 s
            silent.write(au.encode_uuid(CALL_ID))
            assert await _until_closed(silent_reader) == au.encode_hangup()
            silent.close()
            _, writer = await server.connect()  # a UUID, audio, then the socket closes
            writer.write(au.encode_uuid(uuid.UUID(int=2)))
            await _until_a_call(server, 2)
            writer.write(au.encode_audio(bytes(320)))
            writer.close()
            for _ in range(300):
                if server.calls[1].end_reason is not None:
                    break
                await asyncio.sleep(0.01)
        finally:
            await server.server.aclose()
        assert [c.end_reason.value if c.end_reason else None for c in server.calls] == [
            "media_timeout",
            "disconnected",
        ]

    asyncio.run(main())
    lines = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(lines) == 2, lines
    assert "no message for 1 s" in lines[0] and "closed the socket without a hangup" in lines[1]


def test_the_call_limit_and_the_drain_refuse_a_call_with_a_hangup() -> None:
    async def main() -> None:
        drain = Drain()
        server = Server(max_calls=1, drain=drain)
        await server.server.start("127.0.0.1", 0)
        try:
            first_reader, first = await server.connect()
            first.write(au.encode_uuid(CALL_ID))
            await _until_a_call(server)
            reader, writer = await server.connect()
            writer.write(au.encode_uuid(uuid.UUID(int=2)))
            assert await _until_closed(reader) == au.encode_hangup()  # over the limit
            writer.close()
            first.write(au.encode_hangup())  # the first call ends; its slot frees
            assert await _until_closed(first_reader) == au.encode_hangup()
            first.close()
            assert server.calls[0].end_reason is not None and server.calls[0].end_reason.value == "stop"
            drain.begin(5.0)
            reader, writer = await server.connect()
            writer.write(au.encode_uuid(uuid.UUID(int=3)))
            assert await _until_closed(reader) == au.encode_hangup()  # draining
            writer.close()
            assert len(server.calls) == 1
        finally:
            await server.server.aclose()

    asyncio.run(main())
