"""The strategies' timers: armed and re-armed at will, never again once the strategy is cleaned up.

A frame still travelling through a pipeline that is ending may reach a strategy after its
``cleanup``; a timer it armed then would outlive the pipeline (Pipecat logs it as a dangling task).
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any

from agent.turn_taking.strategies import _Deadline


class TaskOwner:
    """What a Pipecat ``BaseObject`` gives a timer: named tasks it creates and cancels."""

    def __init__(self) -> None:
        self.tasks: list[asyncio.Task[Any]] = []

    def create_task(self, coroutine: Coroutine[Any, Any, Any], name: str) -> asyncio.Task[Any]:
        task = asyncio.get_running_loop().create_task(coroutine, name=name)
        self.tasks.append(task)
        return task

    async def cancel_task(self, task: asyncio.Task[Any]) -> None:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)


def test_a_closed_timer_is_never_armed_again_and_a_rearm_cancels_the_last() -> None:
    async def main() -> tuple[list[str], bool, list[bool]]:
        owner = TaskOwner()
        timer = _Deadline(owner, "turn-end-timer")  # type: ignore[arg-type]
        fired: list[str] = []

        async def fire() -> None:
            fired.append("fired")

        loop = asyncio.get_running_loop()
        await timer.arm(loop.time() + 30.0, fire)
        await timer.arm(loop.time() + 0.01, fire)  # the first is cancelled
        await asyncio.sleep(0.05)
        await timer.close()
        await timer.arm(loop.time() + 0.01, fire)  # after cleanup: nothing
        armed_after_close = timer.armed
        await asyncio.sleep(0.05)
        return fired, armed_after_close, [t.done() for t in owner.tasks]

    fired, armed_after_close, done = asyncio.run(main())
    assert fired == ["fired"]
    assert not armed_after_close
    assert done == [True, True]  # two tasks ever made, both finished
