"""The WebRTC offer endpoint and call page: bad offers answered, dead peers end their calls.

A real browser call is ``test_webrtc_call.py``'s business; here the endpoint meets bad requests
over HTTP on 127.0.0.1 (no offer gets as far as ICE) and, for peer failures, a stand-in
connection that fires the events aiortc's would.
"""

from __future__ import annotations

import asyncio
import json
import logging
import urllib.error
import urllib.request
from types import SimpleNamespace
from typing import Any

import pytest
from log_errors import own_errors
from starlette.applications import Starlette

from transports.serve import serving
from transports.webrtc.endpoint import WebRTCEndpoint, call_page_routes, webrtc_params
from transports.ws.settings import ServerSettings

#: an audio offer without ICE credentials or a fingerprint: it could never connect
NO_ICE_SDP = (
    "v=0\r\no=- 1 1 IN IP4 0.0.0.0\r\ns=-\r\nt=0 0\r\nm=audio 9 UDP/TLS/RTP/SAVPF 111\r\n"
    "c=IN IP4 0.0.0.0\r\na=rtpmap:111 opus/48000/2\r\na=mid:0\r\na=sendrecv\r\n"
)
#: with credentials and a fingerprint, but no rtcp-mux: aiortc refuses it while negotiating
NO_MUX_SDP = (
    NO_ICE_SDP
    + "a=ice-ufrag:abcd\r\na=ice-pwd:abcdefghijklmnopqrstuvwx\r\n"
    + "a=fingerprint:sha-256 "
    + ":".join(["AB"] * 32)
    + "\r\na=setup:actpass\r\n"
)


def request(url: str, data: bytes | None = None, method: str = "GET") -> tuple[int, str, str]:
    """(status, content type, body) of one HTTP request."""
    req = urllib.request.Request(url, data=data, method=method, headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=10) as resp:
            return int(resp.status), resp.headers.get("content-type", ""), resp.read().decode()
    except urllib.error.HTTPError as exc:
        return int(exc.code), exc.headers.get("content-type", ""), exc.read().decode()


async def never_called(connection: Any) -> None:
    raise AssertionError("no call should start")


def test_bad_offers_are_answered_with_the_reason_and_start_no_call() -> None:
    """Non-JSON, a non-offer, unusable SDP and a full server each get a JSON error; no call starts."""

    async def main() -> list[tuple[int, str]]:
        endpoint = WebRTCEndpoint(never_called)
        full = WebRTCEndpoint(never_called, path="/full", max_calls=0)
        app = Starlette(routes=[*endpoint.routes(), *full.routes()])
        try:
            async with serving(app, ServerSettings(), host="127.0.0.1", port=0) as (host, port):
                base = f"http://{host}:{port}"
                bodies = [
                    ("/api/offer", b"{not json"),
                    ("/api/offer", json.dumps({"sdp": "v=0", "type": "answer"}).encode()),
                    ("/api/offer", json.dumps({"sdp": "this is not sdp", "type": "offer"}).encode()),
                    ("/api/offer", json.dumps({"sdp": NO_ICE_SDP, "type": "offer"}).encode()),
                    ("/api/offer", json.dumps({"sdp": NO_MUX_SDP, "type": "offer"}).encode()),
                    ("/api/offer", b"[" * 30_000 + b"]" * 30_000),  # nested past the parser's depth
                    (
                        "/api/offer",
                        json.dumps({"sdp": NO_MUX_SDP, "type": "offer", "pc_id": "bogus-1"}).encode(),
                    ),
                    ("/full", json.dumps({"sdp": NO_MUX_SDP, "type": "offer"}).encode()),
                ]
                out = []
                for path, body in bodies:
                    status, kind, text = await asyncio.to_thread(request, base + path, body, "POST")
                    assert kind.startswith("application/json")
                    out.append((status, json.loads(text)["error"]))
                return out
        finally:
            await endpoint.aclose()
            await full.aclose()
            assert endpoint.calls == 0

    answers = asyncio.run(main())
    assert [status for status, _ in answers] == [400, 400, 400, 400, 400, 400, 404, 503]
    assert "JSON with sdp and type" in answers[0][1]
    assert "expected an offer" in answers[1][1]
    assert "no audio section" in answers[2][1]
    assert "cannot connect: it has no a=ice-ufrag, a=ice-pwd, a=fingerprint" in answers[3][1]
    assert answers[4][1] == "unusable offer: its SDP could not be negotiated"  # no library internals
    assert "JSON with sdp and type" in answers[5][1]
    assert "no call in progress has that pc_id" in answers[6][1]
    assert "no room" in answers[7][1]


def test_a_huge_offer_is_refused_before_it_is_read() -> None:
    """A body announcing 200 MiB gets 413 at once: the server reads none of it."""

    async def main() -> tuple[int, bytes]:
        endpoint = WebRTCEndpoint(never_called)
        app = Starlette(routes=[*endpoint.routes()])
        try:
            async with serving(app, ServerSettings(), host="127.0.0.1", port=0) as (host, port):
                reader, writer = await asyncio.open_connection(host, port)
                writer.write(
                    b"POST /api/offer HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                    b"Content-Length: 209715200\r\n\r\n" + b"{" * 65536
                )
                await writer.drain()
                status_line = await asyncio.wait_for(reader.readline(), 30)
                writer.close()
                return int(status_line.split()[1]), status_line
        finally:
            await endpoint.aclose()

    status, line = asyncio.run(main())
    assert status == 413, line


class StandInConnection:
    """What WebRTCEndpoint uses of a SmallWebRTCConnection, with events the test fires."""

    def __init__(self) -> None:
        self.pc_id = "SmallWebRTCConnection#0-0123456789abcdef"
        self.pc = SimpleNamespace(connectionState="connected")
        self.handlers: dict[str, list[Any]] = {}
        self.alive = True
        self.polls = 0
        self.disconnects = 0

    def add_event_handler(self, event: str, handler: Any) -> None:
        self.handlers.setdefault(event, []).append(handler)

    async def fire(self, event: str) -> None:
        self.pc.connectionState = event
        for handler in self.handlers.get(event, []):
            await handler(self)

    def is_connected(self) -> bool:
        self.polls += 1
        return self.alive

    async def disconnect(self) -> None:
        self.disconnects += 1


@pytest.mark.parametrize("how", ["failed", "closed", "keep-alive lost"])
def test_a_dead_peer_ends_its_call_and_a_deaf_bot_is_cancelled(
    how: str, caplog: pytest.LogCaptureFixture
) -> None:
    """ICE failure, a closed connection or a silent page: the call ends and is closed, no task left."""
    caplog.set_level(logging.INFO, logger="warmline.webrtc")
    cancelled = asyncio.Event()

    async def deaf_bot(connection: Any) -> None:
        try:
            await asyncio.Event().wait()  # a bot that ignores the end of its call
        finally:
            cancelled.set()

    async def main() -> StandInConnection:
        endpoint = WebRTCEndpoint(deaf_bot, end_grace_s=0.05, liveness_poll_s=0.01)
        connection = StandInConnection()
        task = endpoint.start_call(connection)  # type: ignore[arg-type]
        assert endpoint.calls == 1
        for _ in range(1000):  # until the call listens for the connection's events (bounded)
            if "failed" in connection.handlers:
                break
            await asyncio.sleep(0)
        if how == "keep-alive lost":
            for _ in range(1000):  # until the watchdog has seen the page alive once (bounded)
                if connection.polls:
                    break
                await asyncio.sleep(0.01)
            connection.alive = False
        else:
            await connection.fire(how)
        await asyncio.wait_for(task, 10)
        assert endpoint.calls == 0 and cancelled.is_set()
        await endpoint.aclose()
        return connection

    connection = asyncio.run(main())
    assert connection.disconnects >= 1
    lines = [r.getMessage() for r in caplog.records if r.name == "warmline.webrtc"]
    assert any("did not stop after the peer left; cancelling it" in line for line in lines)
    assert lines[-1].endswith("call over")


def test_a_failing_watchdog_ends_its_call_frees_its_slot_and_says_so_once(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The call's liveness check raising (a library's bug) ends the call like a dead peer would."""
    caplog.set_level(logging.INFO, logger="warmline.webrtc")

    class BrokenConnection(StandInConnection):
        def is_connected(self) -> bool:
            raise RuntimeError("a bug in the connection")

    async def main() -> None:
        endpoint = WebRTCEndpoint(lambda c: asyncio.Event().wait(), end_grace_s=0.05, liveness_poll_s=0.01)  # type: ignore[arg-type, return-value]
        task = endpoint.start_call(BrokenConnection())  # type: ignore[arg-type]
        await asyncio.wait_for(task, 10)
        assert endpoint.calls == 0
        await endpoint.aclose()

    asyncio.run(main())
    errors = own_errors(caplog.records)
    assert [r.getMessage() for r in errors] == ["webrtc-89abcdef: webrtc-89abcdef-watch failed"]
    assert errors[0].exc_info is not None and errors[0].exc_info[0] is RuntimeError


def test_aclose_cancels_running_calls() -> None:
    """Shutting the endpoint down cancels and awaits every call."""

    async def main() -> None:
        endpoint = WebRTCEndpoint(lambda c: asyncio.Event().wait())  # type: ignore[arg-type, return-value]
        task = endpoint.start_call(StandInConnection())  # type: ignore[arg-type]
        await asyncio.sleep(0)
        await endpoint.aclose()
        assert task.done() and endpoint.calls == 0

    asyncio.run(main())


def test_the_call_page_and_its_scripts_are_served_without_a_cdn() -> None:
    """GET / is the call page; its scripts come from this server, never from elsewhere."""

    async def main() -> dict[str, tuple[int, str, str]]:
        app = Starlette(routes=call_page_routes())
        async with serving(app, ServerSettings(), host="127.0.0.1", port=0) as (host, port):
            paths = ("/", "/static/call.js", "/static/call-recorder.js")
            return {p: await asyncio.to_thread(request, f"http://{host}:{port}{p}") for p in paths}

    pages = asyncio.run(main())
    status, kind, html = pages["/"]
    assert status == 200 and kind.startswith("text/html")
    assert '<script src="/static/call.js">' in html and "http" not in html.split("<body")[1]
    for path in ("/static/call.js", "/static/call-recorder.js"):
        assert pages[path][0] == 200 and "javascript" in pages[path][1]
    assert "https://" not in pages["/static/call.js"][2]


def test_transport_params_write_one_80ms_frame_at_48khz() -> None:
    """Each output write is eight 10 ms chunks (one engine frame) at Opus's 48 kHz."""
    params = webrtc_params()
    assert (params.audio_out_sample_rate, params.audio_out_10ms_chunks) == (48000, 8)
    assert params.audio_in_enabled and params.audio_out_enabled
