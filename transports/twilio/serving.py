"""One phone stream from its accept to its end: the code every media-stream route runs.

    await serve_admitted(websocket, name, open_call=open_call, bot=bot, slots=slots,
                         drain=drain, end_grace_s=2.0, log=log)

``/twilio`` and every carrier's route (``transports.media_stream.server.stream_route``) run
this after their own upgrade check. The stream is accepted, refused (1013) while ``drain`` is
on or when ``slots.max_pending`` streams already wait for their start, read until its start by
``open_call`` (a protocol error: 1008; a bug: 1011; logged, client strings escaped), and only
then takes a call slot from ``slots`` (in the same step as the check: no await between), above
``slots.max_calls`` closing with 1013. Then ``serve_stream`` runs ``bot(call)`` beside the
call's reader: whichever ends first (the stream, its reader, the bot) ends the call; the bot is
told (``report_end``) and given ``end_grace_s``; every task is named after the call, cancelled
and awaited; an error in one call is logged and never reaches another. The slot is given back
however the call ends.

Admission and wiring only: no Pipecat, no engine, no protocol details.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, TypeVar

from starlette.requests import HTTPConnection
from starlette.websockets import WebSocket

from transports.call_slots import CallSlots
from transports.drain import NOT_TAKING, Drain
from transports.logsafe import loggable, loggable_names
from transports.twilio.call import TwilioCall
from transports.twilio.protocol import TwilioProtocolError

CallT = TypeVar("CallT", bound=TwilioCall)


async def serve_admitted(
    websocket: WebSocket,
    name: str,
    *,
    open_call: Callable[[WebSocket, str], Awaitable[CallT]],
    bot: Callable[[CallT], Coroutine[Any, Any, None]],
    slots: CallSlots,
    drain: Drain | None,
    end_grace_s: float,
    log: logging.Logger,
    unsigned: str | None = None,
) -> None:
    """Accept a stream and serve it as one call (see the module doc); with ``unsigned`` (why its
    upgrade request is not the carrier's), refuse it before the accept: 1008, sent as HTTP 403."""
    if unsigned is not None:
        log.warning("%s: refused a stream from %s: %s", name, peer(websocket), unsigned)
        await websocket.close(1008, unsigned)
        return
    await websocket.accept()
    if drain is not None and drain.draining:
        log.info("%s: refused: the server is draining", name)
        await websocket.close(1013, NOT_TAKING)
        return
    if not slots.begin_pending(name):
        log.warning("%s: refused: %d streams already waiting for their start", name, len(slots.pending))
        await websocket.close(1013, "too many streams starting")
        return
    try:
        call = await _handshake(websocket, open_call, name, log)
    finally:
        slots.end_pending(name)
    if call is None:
        return
    if not slots.take(name):
        log.warning("%s: refused: %d calls already", name, slots.taken)
        await call.close(1013, "too many calls")
        return
    try:
        await serve_stream(call, bot, end_grace_s=end_grace_s, name=name, log=log)
    finally:
        slots.give_back(name)


async def _handshake(
    websocket: WebSocket,
    open_call: Callable[[WebSocket, str], Awaitable[CallT]],
    name: str,
    log: logging.Logger,
) -> CallT | None:
    """The call once its stream has started; None (socket closed) if not."""
    try:
        return await open_call(websocket, name)
    except TwilioProtocolError as exc:
        log.warning("%s: stream refused (%s): %s", name, exc.code, loggable(exc))
        await close_quietly(websocket, 1008, exc.code)
        return None
    except Exception as exc:  # a bug in the handshake ends this stream, never the server
        log.error("%s: the handshake failed", name, exc_info=exc)
        await close_quietly(websocket, 1011, "internal error")
        return None


async def serve_stream(
    call: CallT,
    bot: Callable[[CallT], Coroutine[Any, Any, None]],
    *,
    end_grace_s: float,
    name: str,
    log: logging.Logger,
) -> None:
    """Run ``bot(call)`` beside the call's reader until either ends, then close the call."""
    start = call.start
    log.info(
        "%s: stream %s of call %s started (parameters: %s)",
        name,
        loggable(start.stream_sid),
        loggable(start.call_sid),
        loggable_names(start.custom_parameters) or "none",
    )
    reader = asyncio.create_task(call.run_reader(), name=f"{name}-reader")
    ended = asyncio.create_task(call.ended.wait(), name=f"{name}-ended")
    bot_task = asyncio.create_task(bot(call), name=f"{name}-bot")
    tasks = (reader, ended, bot_task)
    try:
        # whichever ends first ends the call: the stream (a send can end it too), its reader, the bot
        await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
        if not bot_task.done():
            await call.report_end()
            await asyncio.wait((bot_task,), timeout=end_grace_s)
            if not bot_task.done():
                log.warning("%s: the bot did not stop %g s after the end; cancelling it", name, end_grace_s)
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.wait(tasks)
        await call.close()
    for task in (reader, bot_task):
        error = None if task.cancelled() else task.exception()
        if error is not None:
            log.error("%s: %s failed", name, task.get_name(), exc_info=error)


async def close_quietly(websocket: WebSocket, code: int, reason: str) -> None:
    """Close a socket within 2 s; never raises."""
    try:
        async with asyncio.timeout(2.0):
            await websocket.close(code, reason)
    except (TimeoutError, OSError, RuntimeError):
        pass  # the carrier is gone; uvicorn drops the transport when the endpoint returns


def peer(conn: HTTPConnection) -> str:
    """The client's address, fit for a log line."""
    return loggable(conn.client.host) if conn.client else "an unknown peer"


__all__ = ["close_quietly", "peer", "serve_admitted", "serve_stream"]
