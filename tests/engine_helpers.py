"""Helpers shared by the engine tests: run a session to quiescence and sort its outputs."""

from __future__ import annotations

from tts_service.engine.session import EngineSession
from tts_service.engine.types import Event, Output, SpeechFrame


def pump(session: EngineSession) -> list[Output]:
    """Run every job the session wants and collect every output, until nothing moves."""
    outputs: list[Output] = []
    while True:
        outputs.extend(session.drain())
        if not session.step():
            outputs.extend(session.drain())
            return outputs


def pump_frames(session: EngineSession, max_frames: int) -> list[Output]:
    """Like ``pump`` but hand out at most ``max_frames`` frames (a listener that is behind)."""
    outputs: list[Output] = []
    frames = 0
    while frames < max_frames:
        item = session.next_output()
        if item is None:
            if not session.step():
                break
            continue
        outputs.append(item)
        if isinstance(item, SpeechFrame):
            frames += 1
    return outputs


def frames_of(outputs: list[Output]) -> list[SpeechFrame]:
    return [o for o in outputs if isinstance(o, SpeechFrame)]


def events_of(outputs: list[Output]) -> list[Event]:
    return [o for o in outputs if not isinstance(o, SpeechFrame)]


def words_of(outputs: list[Output]) -> list[str]:
    return [w.word for f in frames_of(outputs) for w in f.words]
