"""SmallWebRTC's output transport, able to pause the bot without dropping what it has not said.

    transport = smallwebrtc_transport(connection, webrtc_params(), PausableWebRTCOutput)

``BotOutputPauseFrame`` (the caller speaks over the bot, not yet confirmed as a barge-in): the
output stops writing. The chunk being written finishes (at most one 80 ms frame, the transport's
write size), the rest stays queued in Pipecat, and nothing new goes to the browser.
``BotOutputResumeFrame`` continues from the next chunk: no word lost or repeated. An
``InterruptionFrame`` drops what is queued, as always, and the chunk that waited is not written.
``BotOutputDuckFrame`` (a backchannel so far) continues too, each chunk written ``gain_db``
quieter, until a resume brings the level back (a pause silences it again).

Frames with a pts (the TTS's word frames) wait in order behind the audio
(``tts_service.pipecat.compat.AudioOrderedOutputTransport``), so a pause also holds back the words: the
assistant context never records a word whose audio was held. A pause must end before Pipecat's
``audio_out_write_timeout_secs`` (10 s by default; the agent resumes after at most 3 s).
"""

from __future__ import annotations

import asyncio
from typing import Any

import numpy as np
from pipecat.frames.frames import Frame, InterruptionFrame, OutputAudioRawFrame
from pipecat.processors.frame_processor import FrameDirection
from pipecat.transports.smallwebrtc.transport import SmallWebRTCOutputTransport

from tts_service.pipecat.compat import AudioOrderedOutputTransport
from tts_service.pipecat.frames import BotOutputDuckFrame, BotOutputPauseFrame, BotOutputResumeFrame


class PausableWebRTCOutput(AudioOrderedOutputTransport, SmallWebRTCOutputTransport):
    """Pipecat's SmallWebRTC output with pause and resume (see the module docstring)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._resumed = asyncio.Event()
        self._resumed.set()
        #: bumped by every interruption: audio that waited across one is not written
        self._interruptions = 0
        #: the linear gain of a ducked answer (1.0: full level)
        self._gain = 1.0

    @property
    def paused(self) -> bool:
        return not self._resumed.is_set()

    async def process_frame(self, frame: Frame, direction: FrameDirection) -> None:
        if isinstance(frame, BotOutputPauseFrame):
            self._resumed.clear()
        elif isinstance(frame, BotOutputResumeFrame):
            self._gain = 1.0
            self._resumed.set()
        elif isinstance(frame, BotOutputDuckFrame):
            self._gain = 10.0 ** (frame.gain_db / 20.0)
            self._resumed.set()
        elif isinstance(frame, InterruptionFrame):
            self._interruptions += 1
            self._gain = 1.0
            self._resumed.set()
        await super().process_frame(frame, direction)

    async def write_audio_frame(self, frame: OutputAudioRawFrame) -> bool:
        """Write the chunk, once the bot is not paused (dropped if an interruption came meanwhile)."""
        interruptions = self._interruptions
        await self._resumed.wait()
        if frame.interruptible and interruptions != self._interruptions:
            return False
        if self._gain != 1.0:
            pcm = np.frombuffer(frame.audio, dtype="<i2").astype(np.float32) * self._gain
            frame.audio = np.round(pcm).astype("<i2").tobytes()
        written: bool = await super().write_audio_frame(frame)
        return written


__all__ = ["PausableWebRTCOutput"]
