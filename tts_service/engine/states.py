"""A session's states and the verb table: which verb each state takes, and the refusal it raises.

Verbs and states (``SessionState``); each verb returns what it did, and raises
``InvalidStateError`` where the table says so (the state is then unchanged)::

    verb      IDLE            SPEAKING         FLUSHING         PAUSED                    CLOSED
    start     -> SPEAKING     InvalidState     InvalidState     discard rest -> SPEAKING  SessionClosed
    inject    new turn        append           InvalidState     discard rest -> SPEAKING  SessionClosed
    flush     InvalidState    -> FLUSHING      InvalidState     flush after resume        SessionClosed
    pause     InvalidState    -> PAUSED *      -> PAUSED *      InvalidState              SessionClosed
    resume    InvalidState    InvalidState     InvalidState     -> SPEAKING/FLUSHING      SessionClosed
    release   InvalidState    release *        release *        InvalidState              SessionClosed
    reset     -> IDLE         -> IDLE          -> IDLE          -> IDLE                   SessionClosed
    close     -> CLOSED       -> CLOSED        -> CLOSED        -> CLOSED                 no-op

``start``, ``inject`` and ``flush`` return the turn id; ``pause``, ``resume`` and ``reset``
return the event they queued (``Paused``, ``Resumed``, ``Reset``), which also comes out of
``next_output`` in order with the frames. A FLUSHING turn returns to IDLE by itself once its
last frame is handed out (``Done``). ``start`` and ``inject`` keep the conversation prefix; only
``reset`` drops it.

A turn started with ``start(text, held=True)`` is a speculative answer: SPEAKING or FLUSHING as
usual, its audio made (up to the look-ahead) but withheld, so ``next_output`` hands out no frame
of it. ``release()`` lets its frames go (at once, the ones made already); ``reset()`` drops it
unheard. (*) ``pause`` refuses a held turn (nothing was heard), ``release`` anything else.

The ``check_*`` functions are the table's refusals, one per verb, shared by every session that
keeps it (``session.EngineSession`` here, ``remote.wire_session.WireSession`` over the wire), so
both refuse the same verbs with the same words. Each raises or returns; none changes anything.

Pure: imports nothing but ``enum`` and ``tts_service.errors``.
"""

from __future__ import annotations

import enum

from tts_service.errors import InvalidStateError, SessionClosedError


class SessionState(enum.Enum):
    """Where a session is in its call."""

    IDLE = "idle"
    SPEAKING = "speaking"
    FLUSHING = "flushing"
    PAUSED = "paused"
    CLOSED = "closed"


#: the states in which a turn's audio is being made and handed out
RUNNING = (SessionState.SPEAKING, SessionState.FLUSHING)


def check_open(state: SessionState) -> None:
    """Every verb but ``close`` raises ``SessionClosedError`` once the session is closed."""
    if state is SessionState.CLOSED:
        raise SessionClosedError("the session is closed")


def refuse(verb: str, state: SessionState, why: str) -> InvalidStateError:
    """The error of ``verb`` refused in ``state``."""
    return InvalidStateError(f"{verb}() in state {state.value}: {why}")


def check_configure(state: SessionState) -> None:
    """Settings change between turns only."""
    check_open(state)
    if state is not SessionState.IDLE:
        raise InvalidStateError(f"configure() needs an idle session, not {state.value}")


def check_start(state: SessionState) -> None:
    check_open(state)
    if state in RUNNING:
        raise refuse("start", state, "a turn is running: pause() it or wait for done")


def check_inject(state: SessionState) -> None:
    check_open(state)
    if state is SessionState.FLUSHING:
        raise refuse("inject", state, "the turn was flushed: wait for done, or pause() first")


def check_flush(state: SessionState) -> None:
    """SPEAKING flushes now, PAUSED once resumed; nothing else has a turn to flush."""
    check_open(state)
    if state not in (SessionState.SPEAKING, SessionState.PAUSED):
        raise refuse("flush", state, "no running turn to flush")


def check_pause(state: SessionState, *, held: bool) -> None:
    check_open(state)
    if state not in RUNNING or held:
        raise refuse("pause", state, "no turn is being heard (a held one is reset, not paused)")


def check_resume(state: SessionState) -> None:
    check_open(state)
    if state is not SessionState.PAUSED:
        raise refuse("resume", state, "only a paused turn resumes")


def check_release(state: SessionState, *, held: bool) -> None:
    check_open(state)
    if state not in RUNNING or not held:
        raise refuse("release", state, "no held turn")


__all__ = [
    "RUNNING",
    "SessionState",
    "check_configure",
    "check_flush",
    "check_inject",
    "check_open",
    "check_pause",
    "check_release",
    "check_resume",
    "check_start",
    "refuse",
]
