"""Browser calls over WebRTC: the offer/answer endpoint, the call page, and the transport settings.

    endpoint = WebRTCEndpoint(bot)                 # bot(connection) runs one call to its end
    app = Starlette(routes=[*call_page_routes(), *endpoint.routes()], lifespan=...)
    ...
    await endpoint.aclose()                        # on shutdown: every call cancelled and awaited

A bot builds Pipecat's ``SmallWebRTCTransport(connection, webrtc_params())`` on the aiortc
connection it is given. ``webrtc_params`` makes each output write one 80 ms engine frame
(``audio_out_10ms_chunks=8``) at 48 kHz, Opus's own rate, so the engine's frames reach aiortc's
Opus encoder unresampled and leave as four 20 ms packets. Pipecat's output track holds at most the
frame being written, so a barge-in lets at most the rest of one 80 ms frame out, whole.

``POST /api/offer`` takes ``{"sdp", "type"}`` (and ``pc_id``/``restart_pc`` to renegotiate), answers
``{"sdp", "type", "pc_id"}``, and starts ``bot(connection)`` in a task named after the peer,
owned here: it ends when the bot returns, is cancelled ``end_grace_s`` after the peer connection
closes or fails (an ICE failure, a hang-up) or the page stops its keep-alive pings (a closed
tab), and is cancelled and awaited by ``aclose``.
``PATCH /api/offer`` takes trickled ICE candidates. A bad offer or candidate is answered 400 with
the reason (``transports.webrtc.signalling`` checks both before the WebRTC library sees them; one
that can never connect, without ICE credentials or a DTLS fingerprint, included), a body over
256 KiB 413 before it is read, a ``pc_id`` that is no call's 404; beyond ``max_calls`` the answer
is 503. A new offer takes its call slot before its first await (its negotiation), so offers that
arrive together cannot overshoot ``max_calls``; the slot becomes the call or is given back, and
the call gives it back when it ends. Given ``slots`` (``transports.call_slots``), the limit is the
one the server's other routes (Twilio's, the carriers') take from too. A peer
that has not connected ``connect_timeout_s`` after its offer frees its slot. Errors of one call
are logged, never raised into the loop.

``call_page_routes`` serves the browser call page (``static/call.html``, plain JS, no CDN) at
``/``. This module never runs model compute, and never lets a call outlive ``aclose``.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from fastapi import HTTPException
from pipecat.transports.base_transport import TransportParams
from pipecat.transports.smallwebrtc.connection import IceServer, SmallWebRTCConnection
from pipecat.transports.smallwebrtc.request_handler import SmallWebRTCRequest, SmallWebRTCRequestHandler
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import BaseRoute, Route

from transports.call_slots import CallSlots
from transports.drain import NOT_TAKING, Drain
from transports.http_body import BodyRefused, read_body
from transports.logsafe import loggable
from transports.webrtc.signalling import BadRequest, parse_offer, parse_patch

log = logging.getLogger("warmline.webrtc")

STATIC_DIR = Path(__file__).resolve().parent.parent / "static"
#: the page and the scripts it loads
CALL_PAGE_FILES = ("call.js", "call-recorder.js")
#: Opus's own rate: the engine's frames reach the encoder without resampling
OPUS_SAMPLE_RATE = 48000
_MAX_OFFER_BYTES = 256 * 1024
NO_SUCH_CALL = "no call in progress has that pc_id"

WebRTCBot = Callable[[SmallWebRTCConnection], Coroutine[Any, Any, None]]


def webrtc_params(**overrides: Any) -> TransportParams:
    """SmallWebRTC transport parameters: 80 ms writes at 48 kHz out, 16 kHz mono in."""
    values: dict[str, Any] = {
        "audio_in_enabled": True,
        "audio_in_sample_rate": 16000,
        "audio_out_enabled": True,
        "audio_out_sample_rate": OPUS_SAMPLE_RATE,
        "audio_out_10ms_chunks": 8,
    }
    values.update(overrides)
    return TransportParams(**values)


class WebRTCEndpoint:
    """The offer/answer routes and the calls they start; ``aclose`` ends every call."""

    def __init__(
        self,
        bot: WebRTCBot,
        *,
        path: str = "/api/offer",
        ice_servers: list[IceServer] | None = None,
        max_calls: int = 16,
        end_grace_s: float = 2.0,
        liveness_poll_s: float = 0.5,
        connect_timeout_s: float = 15.0,
        drain: Drain | None = None,
        slots: CallSlots | None = None,
    ) -> None:
        self._bot = bot
        self._drain = drain
        self._path = path
        self._handler = SmallWebRTCRequestHandler(ice_servers=ice_servers or [])
        #: the call limit (shared with other routes when given; then ``max_calls`` is its own)
        self._slots = slots or CallSlots(max_calls)
        self._offer_ids = itertools.count(1)
        self._end_grace_s = end_grace_s
        self._liveness_poll_s = liveness_poll_s
        self._connect_timeout_s = connect_timeout_s
        self._calls: dict[str, asyncio.Task[None]] = {}
        self._closed = False

    @property
    def calls(self) -> int:
        """Calls running now."""
        return len(self._calls)

    def routes(self) -> list[BaseRoute]:
        return [
            Route(self._path, self._offer, methods=["POST"]),
            Route(self._path, self._patch, methods=["PATCH"]),
        ]

    async def aclose(self) -> None:
        """Cancel every call and wait for it; later offers are refused."""
        self._closed = True
        tasks = list(self._calls.values())
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.wait(tasks)
        # pipecat leaves these unannotated; their signatures are known, so cast instead of ignoring
        await cast(Callable[[], Awaitable[None]], self._handler.close)()

    # -- routes -------------------------------------------------------------------------------

    async def _offer(self, request: Request) -> Response:
        try:
            body = await read_body(request, max_bytes=_MAX_OFFER_BYTES)
        except BodyRefused as exc:  # too large (413), not complete in time (408), or the client left
            return JSONResponse({"error": str(exc)}, status_code=exc.status, headers=exc.headers)
        try:
            offer = parse_offer(body)
        except BadRequest as exc:
            return _error(400, str(exc))
        if offer.pc_id is not None:
            if offer.pc_id not in self._calls:
                # renegotiation is for a call in progress; a made-up pc_id must not bypass max_calls
                return _error(404, NO_SUCH_CALL)
            return await self._negotiate(offer, None)
        if self._drain is not None and self._drain.draining:
            return _error(503, NOT_TAKING)
        # The slot is taken here, before the first await: offers negotiated at once cannot all
        # see the same free slot. It becomes the call, or is given back however this ends.
        slot = _Slot(f"webrtc-offer-{next(self._offer_ids)}")
        if self._closed or not self._slots.take(slot.name):
            return _error(503, "no room for another call")
        try:
            return await self._negotiate(offer, slot)
        finally:
            if not slot.used:
                self._slots.give_back(slot.name)

    async def _negotiate(self, offer: SmallWebRTCRequest, slot: _Slot | None) -> Response:
        """Answer ``offer``; a new connection becomes a call only on ``slot`` (None: renegotiation)."""
        refused: list[SmallWebRTCConnection] = []

        async def on_connection(connection: SmallWebRTCConnection) -> None:
            # the library makes a new connection when the renegotiated one is gone meanwhile:
            # that is no call of ours, and it has no slot
            if slot is None or slot.used or self._closed:
                refused.append(connection)
                return
            slot.used = True
            self.start_call(connection, slot=slot.name)

        try:
            answer = await self._handler.handle_web_request(offer, on_connection)
        except HTTPException as exc:
            return _error(exc.status_code, str(exc.detail))
        except Exception as exc:  # aiortc rejects an unusable SDP with assorted exception types
            log.warning("webrtc: offer refused: %s: %s", type(exc).__name__, loggable(exc))
            return _error(400, "unusable offer: its SDP could not be negotiated")
        finally:
            for connection in refused:
                await _disconnect(connection, "webrtc: a refused connection")
        if refused:
            return _error(503, "no room for another call") if slot is not None else _error(404, NO_SUCH_CALL)
        if answer is None:
            return _error(500, "no answer")
        return JSONResponse(answer)

    async def _patch(self, request: Request) -> Response:
        try:
            patch = parse_patch(await read_body(request, max_bytes=_MAX_OFFER_BYTES))
        except BodyRefused as exc:  # too large (413), not complete in time (408), or the client left
            return JSONResponse({"error": str(exc)}, status_code=exc.status, headers=exc.headers)
        except BadRequest as exc:
            return _error(400, str(exc))
        if patch.pc_id not in self._calls:
            return _error(404, NO_SUCH_CALL)
        try:
            await self._handler.handle_patch_request(patch)
        except HTTPException as exc:
            return _error(exc.status_code, str(exc.detail))
        except Exception as exc:  # what the ICE agent will not take (after end-of-candidates, say)
            log.warning("webrtc: candidates refused: %s: %s", type(exc).__name__, loggable(exc))
            return _error(400, "unusable candidates: the call's ICE agent refused them")
        return Response(status_code=204)

    # -- calls --------------------------------------------------------------------------------

    def start_call(self, connection: SmallWebRTCConnection, *, slot: str | None = None) -> asyncio.Task[None]:
        """Run ``bot(connection)`` as a call owned here, on the call slot ``slot`` (taken by its
        offer); a connection negotiated elsewhere (no ``slot``) is counted as it starts."""
        name = f"webrtc-{connection.pc_id[-8:]}"
        if slot is None:
            slot = f"webrtc-call-{next(self._offer_ids)}"
            self._slots.occupy(slot)
        held = slot
        task = asyncio.create_task(self._run_call(connection, name), name=name)
        self._calls[connection.pc_id] = task

        def done(_: asyncio.Task[None]) -> None:
            self._calls.pop(connection.pc_id, None)
            self._slots.give_back(held)

        task.add_done_callback(done)
        return task

    async def _run_call(self, connection: SmallWebRTCConnection, name: str) -> None:
        gone = asyncio.Event()

        async def on_gone(_: SmallWebRTCConnection) -> None:
            gone.set()

        connection.add_event_handler("closed", on_gone)
        connection.add_event_handler("failed", on_gone)
        bot = asyncio.create_task(self._bot(connection), name=f"{name}-bot")
        watch = asyncio.create_task(self._watch(connection, gone, name), name=f"{name}-watch")
        log.info("%s: call started", name)
        try:
            await asyncio.wait((bot, watch), return_when=asyncio.FIRST_COMPLETED)
            if not bot.done():
                log.info("%s: the peer is gone (connection %s)", name, connection.pc.connectionState)
                # Closing the connection is how the bot's transport hears of it (on_client_disconnected).
                await _disconnect(connection, name)
                await asyncio.wait((bot,), timeout=self._end_grace_s)
                if not bot.done():
                    log.warning("%s: the bot did not stop after the peer left; cancelling it", name)
        finally:
            for task in (bot, watch):
                task.cancel()
            await asyncio.wait((bot, watch))
            await _disconnect(connection, name)
        for task in (bot, watch):  # either one failing ended the call: say which, once
            error = None if task.cancelled() else task.exception()
            if error is not None:
                log.error("%s: %s failed", name, task.get_name(), exc_info=error)
        log.info("%s: call over", name)

    async def _watch(self, connection: SmallWebRTCConnection, gone: asyncio.Event, name: str) -> None:
        """Return once the peer connection closes or fails, or the page stops its keep-alive.

        A closed tab sends no goodbye: without this, aiortc notices only when ICE consent
        expires, about 30 s later. Pipecat counts a page silent for 3 s as disconnected. A peer
        that never connects (its offer promised what it could not keep) frees its call slot
        after ``connect_timeout_s``.
        """
        seen_alive = False
        deadline = asyncio.get_running_loop().time() + self._connect_timeout_s
        while not gone.is_set():
            if not seen_alive and asyncio.get_running_loop().time() > deadline:
                log.info("%s: the peer never connected; ending the call", name)
                return
            try:
                await asyncio.wait_for(gone.wait(), self._liveness_poll_s)
            except TimeoutError:
                alive = connection.is_connected()
                if alive:
                    seen_alive = True
                elif seen_alive:
                    log.info("%s: the page stopped its keep-alive; ending the call", name)
                    return


async def _disconnect(connection: SmallWebRTCConnection, name: str) -> None:
    try:
        async with asyncio.timeout(5.0):
            await cast(Callable[[], Awaitable[None]], connection.disconnect)()
    except (TimeoutError, OSError, RuntimeError, ConnectionError) as exc:
        log.warning("%s: closing the peer connection failed: %s", name, exc)


@dataclass(slots=True)
class _Slot:
    """One offer's call slot, taken before its negotiation; ``used`` once its call has started."""

    name: str
    used: bool = False


def _error(status: int, message: str) -> Response:
    return JSONResponse({"error": message}, status_code=status)


def call_page_routes(path: str = "/") -> list[BaseRoute]:
    """The browser call page at ``path`` and its scripts under ``/static/``."""

    async def page(request: Request) -> Response:
        return FileResponse(STATIC_DIR / "call.html", headers={"Cache-Control": "no-cache"})

    def script(file: str) -> Route:
        async def serve(request: Request) -> Response:
            return FileResponse(
                STATIC_DIR / file, media_type="text/javascript", headers={"Cache-Control": "no-cache"}
            )

        return Route(f"/static/{file}", serve, methods=["GET"])

    return [Route(path, page, methods=["GET"]), *(script(f) for f in CALL_PAGE_FILES)]


__all__ = [
    "OPUS_SAMPLE_RATE",
    "STATIC_DIR",
    "WebRTCBot",
    "WebRTCEndpoint",
    "call_page_routes",
    "webrtc_params",
]
