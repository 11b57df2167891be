"""Voice activity detection for the agent: the analyzers a call's ``VADProcessor`` can use.

    vad = silero_vad()        # the default: Pipecat's Silero analyzer (its model ships in the wheel)

The turn timing lives here, in one place: ``VAD_START_S`` is how much speech confirms that the
caller started talking (a barge-in's floor), ``VAD_STOP_S`` how much silence confirms they stopped
(the largest part of the voice-to-voice latency). Every analyzer here uses both.
"""

from __future__ import annotations

from pipecat.audio.vad.silero import SileroVADAnalyzer
from pipecat.audio.vad.vad_analyzer import VADAnalyzer, VADParams

#: speech that confirms the caller started talking (and so interrupts the bot)
VAD_START_S = 0.2
#: silence that confirms the caller stopped talking
VAD_STOP_S = 0.4


def vad_params() -> VADParams:
    """The agent's VAD timing, shared by every analyzer."""
    return VADParams(start_secs=VAD_START_S, stop_secs=VAD_STOP_S)


def silero_vad() -> VADAnalyzer:
    """Silero VAD: the default, robust to noise; its ONNX model ships in the pipecat wheel."""
    return SileroVADAnalyzer(params=vad_params())


__all__ = ["VAD_START_S", "VAD_STOP_S", "silero_vad", "vad_params"]
