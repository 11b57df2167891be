"""Faults past the model's own error handling: the runtime fails the job, never the session.

A model that raises ``Exception`` is the engine's business (an ``error`` event, the turn goes
on: ``test_session``). Here the model raises past it: ``SystemExit`` from a native wrapper kills
the worker thread that ran it, a bug raises from the runtime's own batching. Either way the
session whose job it was gets an error event and its turn goes on; every other session is
served; the runtime still has all its workers.
"""

from __future__ import annotations

import asyncio

import pytest
from toy_backends import ToneBackend

from tts_service.engine.ports import UnitAudio, VoiceState
from tts_service.engine.types import Done, ErrorEvent, Output, SpeechFrame
from tts_service.runtime import EngineRuntime, RuntimeSession


async def collect(session: RuntimeSession) -> list[Output]:
    """Everything the session yields up to its turn's Done (bounded)."""
    out: list[Output] = []

    async def run() -> None:
        async for item in session:
            out.append(item)
            if isinstance(item, Done):
                return

    await asyncio.wait_for(run(), 10.0)
    return out


def words(outputs: list[Output]) -> list[str]:
    return [w.word for o in outputs if isinstance(o, SpeechFrame) for w in o.words]


class DyingBackend(ToneBackend):
    """Raises ``kind`` (past ``Exception`` for SystemExit) on text holding "crash", once."""

    def __init__(self, kind: type[BaseException]) -> None:
        super().__init__()
        self.kind = kind
        self.crashed = False

    def synthesize(self, state: VoiceState, text: str, *, speed: float, seed: int | None) -> UnitAudio:
        if "crash" in text and not self.crashed:
            self.crashed = True
            raise self.kind("the model's native side gave up")
        return super().synthesize(state, text, speed=speed, seed=seed)


@pytest.mark.parametrize("kind", [SystemExit, GeneratorExit], ids=["SystemExit", "GeneratorExit"])
def test_a_worker_killed_by_the_model_is_replaced_and_the_session_hears_an_error(
    kind: type[BaseException],
) -> None:
    async def main() -> None:
        backend = DyingBackend(kind)
        async with EngineRuntime(backend, workers=2) as rt:
            victim, bystander = await rt.open_session(), await rt.open_session()
            victim.start("Hello there. Now crash please. And goodbye.")
            victim.flush()
            bystander.start("I am fine, thank you.")
            bystander.flush()
            hurt, fine = await asyncio.gather(collect(victim), collect(bystander))
            errors = [o for o in hurt if isinstance(o, ErrorEvent)]
            assert [e.code for e in errors] == ["synthesis_failed"] and "worker failed" in errors[0].message
            assert isinstance(hurt[-1], Done) and "goodbye." in words(hurt)  # the turn went on
            assert words(fine) == ["I", "am", "fine,", "thank", "you."]
            assert rt.stats.worker_failures == 1
            await asyncio.sleep(0.1)
            assert rt.live_workers == 2  # the dead worker was replaced
            victim.start("Still here.")  # and the model is served again afterwards
            victim.flush()
            assert words(await collect(victim)) == ["Still", "here."]
            await victim.aclose()
            await bystander.aclose()

    asyncio.run(main())
