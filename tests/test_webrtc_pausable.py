"""The agent's WebRTC output: a pause holds the next chunk, a duck lets it through quieter, a resume
brings the level back, and an interruption drops the chunk that waited.

The output is built the way the agent builds it (``compat.smallwebrtc_transport``); its client,
the peer connection's writer, is replaced by a sink that keeps what was written.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any

import numpy as np
from pipecat.frames.frames import Frame, InterruptionFrame, OutputAudioRawFrame
from pipecat.processors.frame_processor import FrameDirection
from pipecat.transports.base_transport import TransportParams
from pipecat.transports.smallwebrtc.connection import SmallWebRTCConnection

from transports.webrtc.pausable_output import PausableWebRTCOutput
from tts_service.pipecat import compat
from tts_service.pipecat.frames import (
    DUCK_GAIN_DB,
    BotOutputDuckFrame,
    BotOutputPauseFrame,
    BotOutputResumeFrame,
)

LEVEL = 8000


class Sink:
    """Stands in for the peer connection: every chunk written, in order."""

    def __init__(self) -> None:
        self.written: list[OutputAudioRawFrame] = []

    async def write_audio_frame(self, frame: OutputAudioRawFrame) -> bool:
        self.written.append(frame)
        return True


def chunk() -> OutputAudioRawFrame:
    return OutputAudioRawFrame(audio=np.full(1280, LEVEL, "<i2").tobytes(), sample_rate=16000, num_channels=1)


def level(frame: OutputAudioRawFrame) -> int:
    return int(np.abs(np.frombuffer(frame.audio, "<i2")).max())


def run(body: Coroutine[Any, Any, None]) -> None:
    asyncio.run(body)


def output() -> tuple[PausableWebRTCOutput, Sink]:
    transport = compat.smallwebrtc_transport(
        SmallWebRTCConnection(), TransportParams(audio_out_enabled=True), PausableWebRTCOutput
    )
    out = transport.output()
    assert isinstance(out, PausableWebRTCOutput)
    sink = Sink()
    out._client = sink  # type: ignore[assignment]
    return out, sink


async def send(out: PausableWebRTCOutput, frame: Frame) -> None:
    await out.process_frame(frame, FrameDirection.DOWNSTREAM)


def test_a_duck_continues_a_paused_answer_quieter_and_a_resume_brings_its_level_back() -> None:
    async def body() -> None:
        out, sink = output()
        await out.write_audio_frame(chunk())
        await send(out, BotOutputPauseFrame())
        waiting = asyncio.create_task(out.write_audio_frame(chunk()), name="test-write")
        await asyncio.sleep(0.05)
        assert not waiting.done() and len(sink.written) == 1, "a chunk went out during the pause"
        await send(out, BotOutputDuckFrame())
        assert await asyncio.wait_for(waiting, 5.0)
        await send(out, BotOutputResumeFrame())
        await out.write_audio_frame(chunk())
        expected = round(LEVEL * 10 ** (DUCK_GAIN_DB / 20))
        assert [level(f) for f in sink.written] == [LEVEL, expected, LEVEL]

    run(body())


def test_an_interruption_during_a_duck_restores_the_level_and_drops_the_chunk_that_waited() -> None:
    async def body() -> None:
        out, sink = output()
        await send(out, BotOutputDuckFrame())
        await send(out, BotOutputPauseFrame())
        waiting = asyncio.create_task(out.write_audio_frame(chunk()), name="test-write")
        await asyncio.sleep(0.05)
        await send(out, InterruptionFrame())
        assert await asyncio.wait_for(waiting, 5.0) is False
        await out.write_audio_frame(chunk())  # the next answer, at full level
        assert [level(f) for f in sink.written] == [LEVEL]

    run(body())
