"""LiveKit's aligned transcript names what the LLM wrote, read by the embedded voice (hibari)."""

from __future__ import annotations

import asyncio

import pytest

from tts_service.backends.hibari.backend import HibariBackend

pytest.importorskip("livekit.agents", reason="the `livekit` extra is not installed")

from livekit.agents import tts
from test_livekit_tts import collect, push_slowly, words_with_times

from tts_service.livekit.tts import WarmlineTTS

ANSWER = "Your total is $2,418.07 and the code is 4410-AZ."


@pytest.fixture(scope="module")
def backend() -> HibariBackend:
    warm = HibariBackend()
    warm.load()
    return warm


def test_timed_strings_are_the_written_tokens_in_order_and_in_time(backend: HibariBackend) -> None:
    """Each TimedString is a written token ("$2,418.07"), never its expansion, with times that grow."""

    async def main() -> list[tts.SynthesizedAudio]:
        async with WarmlineTTS(backend=backend) as voice, voice.stream() as stream:
            pusher = asyncio.create_task(push_slowly(stream, ANSWER, per_token_s=0.0), name="test-push")
            events = await collect(stream)
            await pusher
            return events

    words = words_with_times(asyncio.run(main()))
    assert [w for w, *_ in words] == ANSWER.split(" ")
    starts = [start for _, start, _, _ in words]
    assert starts == sorted(starts)
    money = next(w for w in words if w[0] == "$2,418.07")
    assert money[2] - money[1] > 1.0, "the written token spans the audio of all its spoken words"
