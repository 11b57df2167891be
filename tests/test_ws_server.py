"""A real server on 127.0.0.1 driven by the real websockets client: protocol v1 end to end."""

from __future__ import annotations

import asyncio
import json
import logging
import socket
from collections.abc import Callable

import numpy as np
import pytest
from asr import DISTRACTORS, heard
from hibari.voices import VOICES, cache_dir
from log_errors import own_errors
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidStatus
from ws_helpers import LiveServer, Turn, ready, receive_until, run_with_server, send

from transports.serve import RedactTokens
from transports.ws.settings import ServerSettings
from tts_service import wire as wp
from tts_service.backends.hibari.backend import HibariBackend

Recognize = Callable[..., str | None]

SENTENCES = (
    "hello there, how are you doing today?",
    "i can help you with that, let me check the schedule for tomorrow.",
    "thank you for waiting, your table is ready now.",
)
LONG_TEXT = " ".join(
    ["I can help you with that, let me check the schedule for tomorrow."] * 3
    + ["Thank you for waiting, your table is ready now."] * 3
)


def grammar(*extra: str) -> list[str]:
    return [*SENTENCES, *DISTRACTORS, *extra]


def split_at_done(turn: Turn) -> list[list[wp.AudioMessage]]:
    """The frames of each turn, cut at every done event."""
    turns: list[list[wp.AudioMessage]] = [[]]
    frames = iter(turn.frames)
    for item in turn.order:
        if item == "frame":
            turns[-1].append(next(frames))
        elif isinstance(item, dict) and item["event"] == "done":
            turns.append([])
    return turns[:-1]


def pcm_of(frames: list[wp.AudioMessage]) -> np.ndarray:
    return np.concatenate([wp.audio_to_pcm16(f) for f in frames])


async def marker(ws: ClientConnection) -> Turn:
    """Everything the server sends before its reply to a deliberate bad command."""
    await ws.send('{"cmd": "marker"}')
    return await receive_until(ws, "error")


def metric(server: LiveServer, name: str, **labels: str) -> float:
    """A sample of the server's Prometheus registry (0 when it has none yet)."""
    return server.state.metrics.registry.get_sample_value(name, labels) or 0.0


# -- dia2stream compatibility ------------------------------------------------------------------


def test_dia2stream_sequence_start_inject_inject_each_ends_in_done(
    hibari_backend: HibariBackend, recognizer: Recognize
) -> None:
    """start then two injects sent at once are spoken in order, each its own turn ending in done."""

    async def body(server: LiveServer) -> None:
        async with connect(server.url("/")) as ws:
            hello = await ready(ws)
            assert (hello["sample_rate"], hello["encoding"], hello["protocol"]) == (24000, "pcm16", 1)
            await send(ws, cmd="start", text="[S1] " + SENTENCES[0])
            await send(ws, cmd="inject", text="[S1] " + SENTENCES[1])
            await send(ws, cmd="inject", text=SENTENCES[2])
            turn = Turn()
            for _ in range(3):
                await receive_until(ws, "done", turn=turn)
            assert turn.names() == ["done", "done", "done"]
            turns = split_at_done(turn)
            assert all(f.num_samples == 1920 and f.encoding is wp.Encoding.PCM16 for f in turn.frames)
            for frames, sentence in zip(turns, SENTENCES, strict=True):
                latencies = [f.ms for f in frames]
                assert latencies == sorted(latencies) and latencies[0] >= 0
                assert recognizer(pcm_of(frames), 24000, grammar()) == heard(sentence)

    run_with_server(hibari_backend, body)


def test_empty_text_still_gets_done(hibari_backend: HibariBackend) -> None:
    """A start with nothing speakable ends in done with no audio."""

    async def body(server: LiveServer) -> None:
        async with connect(server.url()) as ws:
            await ready(ws)
            await send(ws, cmd="start", text="   [S2]  ")
            turn = await receive_until(ws, "done")
            assert turn.frames == [] and turn.names() == ["done"]

    run_with_server(hibari_backend, body)


# -- pause, resume, reset ------------------------------------------------------------------------


def test_pause_mid_turn_then_resume(hibari_backend: HibariBackend, recognizer: Recognize) -> None:
    """After paused no frame of the turn arrives; paused counts what was sent; resume finishes it."""
    sentence = SENTENCES[1]

    async def body(server: LiveServer) -> None:
        async with connect(server.url()) as ws:
            await ready(ws)
            await send(ws, cmd="start", text=sentence)
            before = Turn()
            for _ in range(6):
                before.frames.append(wp.decode_audio_frame(await ws.recv()))  # type: ignore[arg-type]
            await send(ws, cmd="pause")
            before = await receive_until(ws, "paused", turn=before)
            paused = before.events[-1]
            assert paused["samples"] == sum(f.num_samples for f in before.frames)
            assert paused["spoken"] and heard(sentence).startswith(heard(paused["spoken"]))
            await asyncio.sleep(0.3)  # time for a wrong frame to show up, if one were coming
            assert (await marker(ws)).frames == []
            await send(ws, cmd="resume")
            after = await receive_until(ws, "done")
            assert after.names()[0] == "resumed" and after.frames
            whole = pcm_of(before.frames + after.frames)
            assert recognizer(whole, 24000, grammar()) == heard(sentence)

    run_with_server(hibari_backend, body)


def test_start_after_pause_replaces_the_remainder(
    hibari_backend: HibariBackend, recognizer: Recognize
) -> None:
    """A start after paused drops the paused turn (and the queue) and speaks only the new text."""

    async def body(server: LiveServer) -> None:
        async with connect(server.url()) as ws:
            await ready(ws)
            await send(ws, cmd="start", text=LONG_TEXT)
            await send(ws, cmd="inject", text="This was queued and must never be spoken.")
            await ws.recv()
            await send(ws, cmd="pause")
            await receive_until(ws, "paused")
            await send(ws, cmd="start", text=SENTENCES[2])
            turn = await receive_until(ws, "done")
            assert turn.names() == ["done"]
            assert recognizer(turn.pcm(), 24000, grammar()) == heard(SENTENCES[2])
            assert (await marker(ws)).frames == []  # the queued utterance was dropped

    run_with_server(hibari_backend, body)


def test_a_held_start_sends_nothing_until_release_then_its_audio_at_once(
    hibari_backend: HibariBackend, recognizer: Recognize
) -> None:
    """start with hold: no frame until release; then the turn, recognised, and done."""

    async def body(server: LiveServer) -> None:
        async with connect(server.url()) as ws:
            await ready(ws)
            await send(ws, cmd="start", text=SENTENCES[2], hold=True)
            await asyncio.sleep(0.5)  # the answer is made meanwhile; none of it may arrive
            assert (await marker(ws)).frames == []
            await send(ws, cmd="release")
            turn = await receive_until(ws, "done")
            assert recognizer(turn.pcm(), 24000, grammar()) == heard(SENTENCES[2])

    run_with_server(hibari_backend, body)


def test_a_held_start_dropped_by_reset_is_never_heard(hibari_backend: HibariBackend) -> None:
    """A cancelled speculation: reset answers reset and no frame of the held turn ever arrives."""

    async def body(server: LiveServer) -> None:
        async with connect(server.url()) as ws:
            await ready(ws)
            await send(ws, cmd="start", text=SENTENCES[1], hold=True)
            await asyncio.sleep(0.3)
            await send(ws, cmd="reset")
            turn = await receive_until(ws, "reset")
            await send(ws, cmd="release")  # nothing held any more: harmless
            assert turn.frames == [] and (await marker(ws)).frames == []

    run_with_server(hibari_backend, body)


def test_reset_drops_the_turn_and_the_queue(hibari_backend: HibariBackend) -> None:
    """reset mid-turn answers reset, sends nothing more of that turn, and a new turn works."""

    async def body(server: LiveServer) -> None:
        async with connect(server.url()) as ws:
            await ready(ws)
            await send(ws, cmd="start", text=LONG_TEXT)
            await send(ws, cmd="inject", text=SENTENCES[0])
            await ws.recv()
            await send(ws, cmd="reset")
            turn = await receive_until(ws, "reset")
            assert "done" not in turn.names()
            await asyncio.sleep(0.3)
            assert (await marker(ws)).frames == []
            await send(ws, cmd="start", text=SENTENCES[0])
            assert (await receive_until(ws, "done")).frames

    run_with_server(hibari_backend, body)


# -- config and streaming ------------------------------------------------------------------------


def test_config_8khz_mulaw_is_decoded_and_recognised(
    hibari_backend: HibariBackend, recognizer: Recognize
) -> None:
    """After config 8000 Hz mu-law, frames are 640 one-byte samples that decode to the sentence."""
    sentence = SENTENCES[0]

    async def body(server: LiveServer) -> None:
        async with connect(server.url()) as ws:
            await ready(ws)
            await send(ws, cmd="config", sample_rate=8000, encoding="mulaw")
            configured = (await receive_until(ws, "configured")).events[-1]
            assert (configured["sample_rate"], configured["encoding"]) == (8000, "mulaw")
            await send(ws, cmd="start", text=sentence)
            turn = await receive_until(ws, "done")
            assert all(f.num_samples == 640 and len(f.payload) == 640 for f in turn.frames)
            assert recognizer(turn.pcm(), 8000, grammar()) == heard(sentence)

    run_with_server(hibari_backend, body)


def test_streaming_mode_injects_tokens_and_flush_ends_the_turn(
    hibari_backend: HibariBackend, recognizer: Recognize
) -> None:
    """In streaming mode tokens extend one turn; no done comes before flush, one comes after."""
    sentence = SENTENCES[1]
    tokens = [sentence[i : i + 3] for i in range(0, len(sentence), 3)]

    async def body(server: LiveServer) -> None:
        async with connect(server.url()) as ws:
            await ready(ws)
            await send(ws, cmd="config", streaming=True)
            await receive_until(ws, "configured")
            await send(ws, cmd="start", text="")
            for token in tokens:
                await send(ws, cmd="inject", text=token)
            before = await marker(ws)
            assert "done" not in before.names()
            await send(ws, cmd="flush")
            turn = await receive_until(ws, "done", turn=before)
            assert turn.names().count("done") == 1
            assert recognizer(turn.pcm(), 24000, grammar()) == heard(sentence)
            await send(ws, cmd="inject", text="More.")
            await send(ws, cmd="flush")
            await send(ws, cmd="inject", text="Too late.")  # the turn was flushed
            errors = await receive_until(ws, "error")
            assert errors.events[-1]["code"] == "invalid_state"

    run_with_server(hibari_backend, body)


# -- bad input -------------------------------------------------------------------------------------

BAD_MESSAGES: list[tuple[str | bytes, str]] = [
    ("not json", "bad_json"),
    ("[1, 2]", "bad_json"),
    ('{"text": "hi"}', "unknown_command"),
    ('{"cmd": "sing"}', "unknown_command"),
    ('{"cmd": 5}', "bad_type"),
    ('{"cmd": "start", "text": 5}', "bad_type"),
    (b"\x00\x01binary", "binary_not_accepted"),
    (json.dumps({"cmd": "start", "text": "a" * 2000}), "message_too_large"),
    (json.dumps({"cmd": "start", "text": "word " * 60}), "text_too_long"),
    ('{"cmd": "config", "sample_rate": 11025}', "unsupported_sample_rate"),
    ('{"cmd": "config", "encoding": "opus"}', "unsupported_format"),
    ('{"cmd": "config", "voice": "nobody"}', "unknown_voice"),
    ('{"cmd": "config", "speed": 5}', "invalid_speed"),
    ('{"cmd": "config", "word_timestamps": "yes"}', "bad_type"),
]


def test_every_bad_input_gets_its_code_and_the_connection_stays_usable(hibari_backend: HibariBackend) -> None:
    """Each bad message is answered by an error with a stable code; a normal turn still works."""
    settings = ServerSettings(max_message_bytes=1024, max_turn_chars=200)

    async def body(server: LiveServer) -> None:
        async with connect(server.url()) as ws:
            await ready(ws)
            for message, code in BAD_MESSAGES:
                await ws.send(message)
                event = (await receive_until(ws, "error")).events[-1]
                assert event["code"] == code, (message, event)
            await send(ws, cmd="start", text=SENTENCES[0])
            await send(ws, cmd="config", sample_rate=8000)  # config mid-turn
            turn = await receive_until(ws, "done")
            assert [e["code"] for e in turn.events if e["event"] == "error"] == ["invalid_state"]
            assert turn.frames
            assert metric(server, "warmline_ws_errors_total", code="bad_json") == 2

    run_with_server(hibari_backend, body, settings)


def test_an_unknown_voice_tells_the_client_the_voices_but_logs_the_servers_paths(
    hibari_backend: HibariBackend, caplog: pytest.LogCaptureFixture
) -> None:
    """The client learns which voices exist; how to install another (a path on this machine) is
    for the operator's log only."""
    if set(VOICES) <= set(hibari_backend.voices()):
        pytest.skip("every hibari voice is cached here: no operator hint to keep from the client")
    caplog.set_level(logging.INFO, logger="warmline.ws")

    async def body(server: LiveServer) -> None:
        async with connect(server.url()) as ws:
            await ready(ws)
            await send(ws, cmd="config", voice="nobody")
            event = (await receive_until(ws, "error")).events[-1]
            assert event["code"] == "unknown_voice" and "available: heart" in event["message"]
            assert str(cache_dir()) not in event["message"] and "hibari --voice" not in event["message"]

    run_with_server(hibari_backend, body)
    assert any(str(cache_dir()) in r.getMessage() for r in caplog.records if r.name == "warmline.ws")


def test_a_full_queue_answers_busy(hibari_backend: HibariBackend) -> None:
    """Utterances beyond max_queued_turns are refused with busy; the queued one is still spoken."""

    async def body(server: LiveServer) -> None:
        async with connect(server.url()) as ws:
            await ready(ws)
            await send(ws, cmd="start", text=SENTENCES[0])
            await send(ws, cmd="inject", text=SENTENCES[1])
            await send(ws, cmd="inject", text=SENTENCES[2])
            turn = await receive_until(ws, "error")
            assert turn.events[-1]["code"] == "busy"
            await receive_until(ws, "done", turn=turn)
            await receive_until(ws, "done", turn=turn)
            assert turn.names() == ["error", "done", "done"]

    run_with_server(hibari_backend, body, ServerSettings(max_queued_turns=1))


def test_commands_over_the_rate_are_dropped_but_pause_never_is(hibari_backend: HibariBackend) -> None:
    """Past the burst one rate_limited error is sent, later commands are dropped, pause still lands."""

    async def body(server: LiveServer) -> None:
        async with connect(server.url()) as ws:
            await ready(ws)
            await send(ws, cmd="start", text=LONG_TEXT)
            for _ in range(4):
                await send(ws, cmd="nope")
            await send(ws, cmd="pause")
            turn = await receive_until(ws, "paused")
            codes = [e.get("code", e["event"]) for e in turn.events]
            assert codes == ["unknown_command", "unknown_command", "rate_limited", "paused"]

    run_with_server(hibari_backend, body, ServerSettings(commands_per_s=0.001, command_burst=3))


# -- many clients ----------------------------------------------------------------------------------

NUMBERS = [
    "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
    "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty",
]  # fmt: skip


def test_twenty_concurrent_clients_each_get_their_own_audio(
    hibari_backend: HibariBackend, recognizer: Recognize
) -> None:
    """20 clients at once on one warm model: each gets its own words; a few are recognised."""
    texts = [f"please call client {n} back tomorrow morning." for n in NUMBERS]

    async def one(server: LiveServer, text: str) -> Turn:
        async with connect(server.url()) as ws:
            await ready(ws)
            await send(ws, cmd="config", word_timestamps=True)
            await receive_until(ws, "configured")
            await send(ws, cmd="start", text=text)
            return await receive_until(ws, "done")

    async def body(server: LiveServer) -> None:
        turns = await asyncio.gather(*(one(server, t) for t in texts))
        for text, turn in zip(texts, turns, strict=True):
            assert heard(" ".join(turn.words())) == heard(text)
            starts = [e["start_ms"] for e in turn.events if e["event"] == "word"]
            assert starts == sorted(starts)
        for i in (0, 6, 19):
            assert recognizer(turns[i].pcm(), 24000, texts) == heard(texts[i])
        assert await server.wait_sessions(0) == 0

    run_with_server(hibari_backend, body)


# -- misbehaving clients ---------------------------------------------------------------------------


def test_a_client_that_never_reads_is_dropped_without_stalling_others(
    hibari_backend: HibariBackend, recognizer: Recognize
) -> None:
    """A non-reading client is closed after a bounded backlog; a normal client meanwhile is fine."""
    settings = ServerSettings(send_queue_messages=8)

    async def body(server: LiveServer) -> None:
        sock = socket.socket()
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        sock.connect((server.host, server.port))
        async with connect(server.url(), sock=sock, max_queue=1) as slow:
            await send(slow, cmd="config", sample_rate=48000)
            await send(slow, cmd="start", text=LONG_TEXT * 2)
            async with connect(server.url()) as ws:
                await ready(ws)
                await send(ws, cmd="start", text=SENTENCES[2])
                turn = await receive_until(ws, "done")
                assert recognizer(turn.pcm(), 24000, grammar()) == heard(SENTENCES[2])
            assert await server.wait_sessions(0) == 0  # the slow one was dropped too
            assert metric(server, "warmline_ws_rejected_connections_total", reason="slow_client") == 1
            with pytest.raises(ConnectionClosed):
                for _ in range(100_000):
                    await asyncio.wait_for(slow.recv(), 30)

    run_with_server(hibari_backend, body, settings)


def test_a_vanishing_client_frees_its_session_at_once(hibari_backend: HibariBackend) -> None:
    """A client that drops its connection mid-turn frees its session; others carry on."""

    async def body(server: LiveServer) -> None:
        async with connect(server.url()) as other:
            await ready(other)
            gone = await connect(server.url())
            await ready(gone)
            await send(gone, cmd="start", text=LONG_TEXT)
            await gone.recv()
            gone.transport.abort()
            assert await server.wait_sessions(1) == 1
            await send(other, cmd="start", text=SENTENCES[0])
            assert (await receive_until(other, "done")).frames
        assert await server.wait_sessions(0) == 0

    run_with_server(hibari_backend, body)


def test_an_idle_connection_is_closed(hibari_backend: HibariBackend) -> None:
    """A client that sends nothing for idle_timeout_s (while nothing is spoken) is closed with 1000."""

    async def body(server: LiveServer) -> None:
        async with connect(server.url()) as ws:
            await ready(ws)
            with pytest.raises(ConnectionClosed) as info:
                await asyncio.wait_for(ws.recv(), 30)
            assert info.value.rcvd is not None
            assert (info.value.rcvd.code, info.value.rcvd.reason) == (1000, "idle timeout")

    run_with_server(hibari_backend, body, ServerSettings(idle_timeout_s=0.3))


# -- admission -------------------------------------------------------------------------------------


class _Records(logging.Handler):
    """Keeps every record logged to the logger it is attached to."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


def test_token_is_required_by_header_or_query(hibari_backend: HibariBackend) -> None:
    """With --token, upgrades without the right token get 401 (no error logged); Bearer or ?token= get in."""
    records = _Records()
    uvicorn_log = logging.getLogger("uvicorn.error")

    async def body(server: LiveServer) -> None:
        uvicorn_log.addHandler(records)  # now: starting uvicorn reconfigured its loggers' handlers
        for url in (server.url(), server.url(query="token=wrong")):
            with pytest.raises(InvalidStatus) as info:
                async with connect(url):
                    pass
            assert info.value.response.status_code == 401
        async with connect(server.url(), additional_headers={"Authorization": "Bearer s3cret"}) as ws:
            await ready(ws)
        async with connect(server.url(query="token=s3cret")) as ws:
            await ready(ws)
        assert (await server.get("/metrics"))[0] == 401
        status, body = await server.get("/metrics", {"Authorization": "Bearer s3cret"})
        assert status == 200 and b"warmline_ws_sessions" in body

    try:
        run_with_server(hibari_backend, body, ServerSettings(token="s3cret"))
    finally:
        uvicorn_log.removeHandler(records)
    assert [r.getMessage() for r in own_errors(records.records)] == []


def test_tokens_are_redacted_from_server_logs() -> None:
    """uvicorn's log line for a WebSocket path never shows the ?token= value."""
    record = logging.LogRecord(
        "uvicorn.error", logging.INFO, __file__, 1, '%s - "WebSocket %s" [accepted]',
        ("127.0.0.1:5", "/ws?token=s3cret&x=1"), None,
    )  # fmt: skip
    assert RedactTokens().filter(record)
    assert record.getMessage() == '127.0.0.1:5 - "WebSocket /ws?token=[redacted]&x=1" [accepted]'


def test_origin_allow_list(hibari_backend: HibariBackend) -> None:
    """Only allowed browser Origins may connect (403 otherwise); programs without Origin may."""

    async def body(server: LiveServer) -> None:
        with pytest.raises(InvalidStatus) as info:
            async with connect(server.url(), origin="https://evil.example"):  # type: ignore[arg-type]
                pass
        assert info.value.response.status_code == 403
        async with connect(server.url(), origin="https://app.example") as ws:  # type: ignore[arg-type]
            await ready(ws)
        async with connect(server.url()) as ws:
            await ready(ws)

    run_with_server(hibari_backend, body, ServerSettings(allow_origins=("https://app.example",)))


def test_default_origin_policy_is_same_origin(hibari_backend: HibariBackend) -> None:
    """Without an allow-list the server's own page may connect and a foreign page may not."""

    async def body(server: LiveServer) -> None:
        own = f"http://{server.host}:{server.port}"
        async with connect(server.url(), origin=own) as ws:  # type: ignore[arg-type]
            await ready(ws)
        with pytest.raises(InvalidStatus):
            async with connect(server.url(), origin="http://evil.example"):  # type: ignore[arg-type]
                pass

    run_with_server(hibari_backend, body)


def test_over_max_sessions_is_closed_with_1013(hibari_backend: HibariBackend) -> None:
    """The connection past max_sessions is accepted then closed with 1013 and a reason."""

    async def body(server: LiveServer) -> None:
        async with connect(server.url()) as first:
            await ready(first)
            async with connect(server.url()) as second:
                with pytest.raises(ConnectionClosed) as info:
                    await asyncio.wait_for(second.recv(), 30)
            assert info.value.rcvd is not None and info.value.rcvd.code == 1013
            assert "busy" in info.value.rcvd.reason
            health = await server.get_json("/healthz")
            assert (health["sessions"], health["model_loaded"], health["status"]) == (1, True, "ok")
        assert await server.wait_sessions(0) == 0
        async with connect(server.url()) as again:
            await ready(again)

    run_with_server(hibari_backend, body, ServerSettings(max_sessions=1))


def test_max_sessions_holds_against_40_simultaneous_connections(hibari_backend: HibariBackend) -> None:
    """40 clients at once against max_sessions 4: 4 get ``ready``, 36 get 1013, 4 sessions counted."""

    async def first_word(ws: ClientConnection) -> str | int:
        try:
            return str(json.loads(await asyncio.wait_for(ws.recv(), 30))["event"])
        except ConnectionClosed as exc:
            return exc.rcvd.code if exc.rcvd is not None else 0

    async def body(server: LiveServer) -> None:
        clients = await asyncio.gather(*(connect(server.url()) for _ in range(40)))
        try:
            words = await asyncio.gather(*(first_word(ws) for ws in clients))
            assert sorted(words, key=str) == [1013] * 36 + ["ready"] * 4
            assert server.state.connections == 4 and server.state.runtime.session_count == 4
        finally:
            await asyncio.gather(*(ws.close() for ws in clients))
        assert await server.wait_sessions(0) == 0

    run_with_server(hibari_backend, body, ServerSettings(max_sessions=4))


def test_page_healthz_and_metrics_are_served(hibari_backend: HibariBackend) -> None:
    """GET / is the player page; metrics count frames, first-frame latency and sessions."""

    async def body(server: LiveServer) -> None:
        status, page = await server.get("/")
        assert status == 200 and b"player.js" in page
        async with connect(server.url()) as ws:
            await ready(ws)
            await send(ws, cmd="start", text=SENTENCES[0])
            turn = await receive_until(ws, "done")
            assert metric(server, "warmline_ws_sessions") == 1
        assert metric(server, "warmline_ws_frames_sent_total") == len(turn.frames)
        assert metric(server, "warmline_ws_first_frame_latency_seconds_count") == 1

    run_with_server(hibari_backend, body)
