"""Peers that misbehave at the socket: they cost the server nothing once they are dropped.

The clients here are raw sockets (no WebSocket library reading in the background): a 4 KiB
receive buffer, one long ``start``, and never a byte read. The server drops each (1008 after its
send queue stalls) and, although the close frame can never reach such a peer, its descriptor is
freed within the kernel's user timeout rather than held for as long as the peer holds its end.
"""

from __future__ import annotations

import asyncio
import base64
import json
import os
import socket
import struct
from pathlib import Path
from typing import Any

from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed
from ws_helpers import live_server, ready, receive_until, send

from transports.ws.settings import ServerSettings
from tts_service.backends.hibari.backend import HibariBackend

#: long enough that its audio overflows any send queue
LONG_TEXT = "Thank you for waiting, your table is ready now. " * 40


def websocket_frame(text: str) -> bytes:
    """One masked client text frame (RFC 6455), as a browser or library would send it."""
    payload = text.encode()
    mask = os.urandom(4)
    masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
    if len(payload) < 126:
        header = struct.pack("!BB", 0x81, 0x80 | len(payload))
    else:
        header = struct.pack("!BBH", 0x81, 0x80 | 126, len(payload))
    return header + mask + masked


def raw_client_that_never_reads(host: str, port: int) -> socket.socket:
    """Upgrade to a WebSocket, send one long start, and never read anything after the 101."""
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.connect((host, port))
    key = base64.b64encode(os.urandom(16)).decode()
    sock.sendall(
        (
            f"GET /ws HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
        ).encode()
    )
    response = b""
    while b"\r\n\r\n" not in response:  # the 101 (nothing after it is ever read)
        chunk = sock.recv(1)
        assert chunk, "the server closed during the handshake"
        response += chunk
    assert response.startswith(b"HTTP/1.1 101"), response
    sock.sendall(websocket_frame(json.dumps({"cmd": "start", "text": LONG_TEXT})))
    return sock


def server_side_sockets(port: int) -> int:
    """Sockets of this process whose local port is ``port`` and that are not listening."""
    count = 0
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            local_port = int(fields[1].rsplit(":", 1)[1], 16)
            state, inode = fields[3], int(fields[9])
            if local_port == port and state != "0A" and inode != 0:  # 0A: LISTEN; 0: no descriptor
                count += 1
    return count


def test_clients_that_never_read_are_dropped_and_their_descriptors_freed(
    hibari_backend: HibariBackend,
) -> None:
    """Twelve never-reading peers: all dropped, every server-side socket freed while the peers
    still hold theirs, and a well-behaved client is served throughout."""
    settings = ServerSettings(send_queue_messages=8, stall_timeout_s=1.0, close_timeout_s=0.5)

    async def main() -> None:
        async with live_server(hibari_backend, settings, user_timeout_s=2.0) as server:
            peers = [
                await asyncio.to_thread(raw_client_that_never_reads, server.host, server.port)
                for _ in range(12)
            ]
            try:
                assert await wait_until(lambda: server.state.connections == 12)
                async with connect(server.url()) as ws:
                    await ready(ws)
                    await send(ws, cmd="start", text="Hello.")
                    assert (await receive_until(ws, "done")).frames
                assert await wait_until(lambda: server.state.connections == 0), server.state.connections
                assert server.state.runtime.session_count == 0
                assert await wait_until(lambda: server_side_sockets(server.port) == 0), (
                    f"{server_side_sockets(server.port)} server-side sockets still open"
                )
            finally:
                for peer in peers:
                    peer.close()

    asyncio.run(main())


async def wait_until(condition: object, timeout_s: float = 60.0) -> bool:
    """Poll ``condition()`` every 0.1 s (a bound against hangs, not a timing assertion)."""
    assert callable(condition)
    for _ in range(int(timeout_s / 0.1)):
        if condition():
            return True
        await asyncio.sleep(0.1)
    return bool(condition())


def test_hundreds_of_idle_connections_are_bounded_and_then_timed_out(hibari_backend: HibariBackend) -> None:
    """300 clients connect and say nothing: the first ``max_sessions`` are served, the rest get
    1013 at once; the idle timeout then closes every served one (1000), and nothing is left."""
    settings = ServerSettings(max_sessions=64, idle_timeout_s=5.0)  # longer than connecting 300 takes

    async def main() -> None:
        async with live_server(hibari_backend, settings) as server:
            clients = [await connect(server.url()) for _ in range(300)]
            try:
                codes = await asyncio.gather(*(close_code(ws) for ws in clients))
            finally:
                for ws in clients:
                    await ws.close()
            assert codes.count(1013) == 300 - 64 and codes.count(1000) == 64, sorted(set(codes))
            assert await wait_until(lambda: server.state.connections == 0)
            assert server.state.runtime.session_count == 0
            assert await wait_until(lambda: server_side_sockets(server.port) == 0)

    async def close_code(ws: Any) -> int | None:
        try:
            while True:
                await asyncio.wait_for(ws.recv(), 30)
        except ConnectionClosed as exc:
            return exc.rcvd.code if exc.rcvd is not None else None

    asyncio.run(main())
