"""A phone call over Asterisk AudioSocket: a simulated PBX on 127.0.0.1 (the caller's audio every
20 ms, the bot's played at real time and read no faster), the Pipecat bot of ``test_twilio_call``
over the same ``TwilioMediaStreamTransport``, hibari on a frozen clock.

Asterisk acknowledges nothing, so the words heard come from the frames the PBX actually took:
the first answer is heard whole; the second is cut by a barge-in, and the context holds exactly
the words of the frames whose audio the PBX read (a frame begun counts); none of the bot's audio
reaches the PBX 100 ms after the output paused.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from asr import DISTRACTORS, normalize
from test_twilio_call import (
    ANSWER_1,
    ANSWER_2,
    BARGE_IN,
    HEARD_FRAMES,
    MAX_TICKS,
    QUESTION_1,
    QUESTION_2,
    Bot,
    frozen_clock,
    speech,
    truth_frames,
    words_of,
)

from transports.asterisk.audiosocket_carrier import AudioSocketPbx
from transports.asterisk.audiosocket_server import AudioSocketServer
from transports.media_stream.server import CallSlots
from tts_service import g711
from tts_service.engine.ports import Backend
from tts_service.engine.types import SpeechFrame
from tts_service.runtime import EngineRuntime

CHUNKS_PER_FRAME = 4


def pcm_of(backend: Backend, text: str) -> np.ndarray[Any, np.dtype[np.int16]]:
    return g711.decode(speech(backend, text))


def pcm_bytes(frames: list[SpeechFrame]) -> int:
    """The bytes of signed linear 8 kHz audio in ``frames``."""
    return 2 * sum(f.samples.size for f in frames)


async def scenario(pbx: AudioSocketPbx, backend: Backend) -> None:
    """Question, whole answer; question, barge-in after ``HEARD_FRAMES`` frames played; silence."""
    await pbx.wait_until(lambda p: p.tick >= 10, max_ticks=MAX_TICKS)
    pbx.say(pcm_of(backend, QUESTION_1))
    assert await pbx.wait_until(lambda p: p.idle_for(50), max_ticks=MAX_TICKS), "no first answer"
    await pbx.press("5")
    pbx.say(pcm_of(backend, QUESTION_2))

    def second_played(p: AudioSocketPbx) -> int:
        return sum(1 for played in p.log.played if played.answer == 2)

    target = HEARD_FRAMES * CHUNKS_PER_FRAME
    assert await pbx.wait_until(lambda p: second_played(p) >= target, max_ticks=MAX_TICKS), "no answer"
    pbx.say(pcm_of(backend, BARGE_IN), question=False)  # the caller talks over the bot
    await pbx.wait_until(lambda p: not p.speaking, max_ticks=MAX_TICKS)
    await pbx.wait_until(lambda p: False, max_ticks=60)  # 1.2 s more: nothing may follow


@pytest.mark.scenario  # a whole phone call in real time (tests/conftest.py: SCENARIO_MODULES)
def test_an_audiosocket_call_barges_in_and_the_context_holds_the_words_the_pbx_took(
    hibari_backend: Backend, recognizer: Callable[..., str | None]
) -> None:
    truth_1 = truth_frames(hibari_backend, ANSWER_1)
    truth_2 = truth_frames(hibari_backend, ANSWER_2)
    result: dict[str, Any] = {}

    async def main() -> None:
        async with EngineRuntime(hibari_backend, workers=1, clock=frozen_clock) as runtime:
            bot = Bot(runtime, [ANSWER_1, ANSWER_2])
            server = AudioSocketServer(bot, slots=CallSlots(max_calls=1))
            await server.start("127.0.0.1", 0)
            try:
                pbx = await AudioSocketPbx.connect("127.0.0.1", server.port)
                clock = asyncio.create_task(pbx.run(), name="test-pbx")
                try:
                    await scenario(pbx, hibari_backend)
                    await pbx.hang_up()
                finally:
                    clock.cancel()
                    await asyncio.gather(clock, return_exceptions=True)
                for _ in range(300):
                    if bot.transports and bot.transports[0].call.end_reason is not None:
                        break
                    await asyncio.sleep(0.01)
            finally:
                await server.aclose()
            result.update(pbx=pbx, bot=bot)

    asyncio.run(main())
    pbx: AudioSocketPbx = result["pbx"]
    bot: Bot = result["bot"]
    transport = bot.transports[0]
    log = pbx.log
    assert log.violations == []
    assert bot.dtmf.digits == ["5"]
    assert transport.call.end_reason is not None and transport.call.end_reason.value == "stop"

    # the first answer: every frame played, every word heard
    heard_1 = b"".join(p.pcm for p in log.played if p.answer == 1)
    assert len(heard_1) == pcm_bytes(truth_1)
    contexts = list(bot.heard)
    assert len(contexts) == 2
    assert bot.heard[contexts[0]] == words_of(truth_1)

    # the second: the PBX took a prefix of it; the context holds the words of exactly the frames
    # that prefix began
    heard_2 = b"".join(p.pcm for p in log.played if p.answer == 2)
    frames_taken = math.ceil(len(heard_2) / (CHUNKS_PER_FRAME * 320))
    assert HEARD_FRAMES <= frames_taken < len(truth_2), "the barge-in cut the answer"
    returned = [e.seq for e in transport.output().trace if e.kind == "mark_returned"]
    assert max(returned) == len(truth_1) + frames_taken - 1, "the last frame the PBX took counts as heard"
    assert bot.heard[contexts[1]] == words_of(truth_2[:frames_taken])
    assert transport.output().heard_words == words_of(truth_1) + words_of(truth_2[:frames_taken])

    # no bot audio reaches the PBX 100 ms after the output stopped for the barge-in
    trace = transport.output().trace
    began = next(e.time_s for e in trace if e.kind == "frame_sent" and e.seq == len(truth_1))
    stops = [e.time_s for e in trace if e.kind in ("pause", "interrupt") and e.time_s > began]
    assert stops, "the barge-in stopped the output"
    last_played = max(p.time_s for p in log.played if p.answer == 2)
    assert last_played <= stops[0] + 0.1, last_played - stops[0]

    grammar = [ANSWER_1, QUESTION_1, *DISTRACTORS]
    assert recognizer(g711.decode(g711.encode(np.frombuffer(heard_1, "<i2"))), 8000, grammar) == " ".join(
        normalize(ANSWER_1)
    )
