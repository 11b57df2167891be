"""Every use of Pipecat's private internals, in one place, checked against the versions we know.

Pipecat's public API does not cover everything Warmline needs. Each reach past it lives here,
named for what it does, so that a Pipecat release that moves one breaks this module and its
contract test (``tests/test_pipecat_compat.py``) loudly, instead of silently changing how a
call behaves:

* ``promote_pending_words``: make a TTS service's pending LLM text matchable before the words
  of its audio are reported (``TTSService._aggregated_frame_sequencer`` and
  ``_push_sequencer_frames``; see ``WarmlineTTSService`` for why).
* ``shared_silero_analyzer``: a ``SileroVADAnalyzer`` on one process-wide ONNX session. Pipecat
  loads the model per analyzer (about 5 MB and 50 ms, on the event loop, for every call); the
  session is stateless and thread-safe, the recurrent state lives in each ``SileroOnnxModel``.
* ``shared_smart_turn_analyzer``: a ``LocalSmartTurnAnalyzerV3`` on one process-wide ONNX session
  of the bundled Smart Turn v3.2 model (Pipecat builds the session, about 9 MB, per analyzer); the
  analyzer keeps its own audio buffer, so one serves one stream (``_session``, ``_log_data``).
* ``smallwebrtc_transport``: a ``SmallWebRTCTransport`` whose output processor is a subclass of
  Pipecat's (``_output``, ``_client``, ``_params``, ``_output_name``: the transport builds its
  output itself, with no hook for another class).
* ``AudioOrderedOutputTransport``: an output transport that queues the frames it chooses in
  order with its audio instead of timing them by their pts (it overrides
  ``BaseOutputTransport._handle_frame`` and uses ``_media_senders``; the Twilio transport is one).
* ``FramesInAudioOrder``: the same promise from the TTS side, for any output transport: a TTS
  service that sends its frames downstream without a pts. Pipecat stamps a TTS's word frames (and
  the aggregation and segment frames around them) with a pts, and every ``BaseOutputTransport``
  releases a frame with a pts on its clock, whatever its audio task has written: on a loaded
  machine the audio falls behind the clock and the assistant context records words the caller
  has not heard. A frame without a pts waits in the output's audio queue behind the audio pushed
  before it, so it leaves once that audio has been written. It relies on that routing (public
  behaviour, no private name) and on ``TTSService`` doing its own bookkeeping of a frame's pts
  before ``FrameProcessor.push_frame`` (its contract test: ``tests/test_context_under_load.py``).

``TESTED_PIPECAT`` is the release line this module was written against; ``TESTED_PIPECAT.check()`` logs
one warning on another (the contract test tells whether it still holds). This module imports
Pipecat at import time: only modules that already need Pipecat import it.
"""

from __future__ import annotations

import threading
from importlib import resources
from typing import TYPE_CHECKING, Any

import onnxruntime
from pipecat.audio.turn.smart_turn.base_smart_turn import BaseSmartTurn, SmartTurnParams
from pipecat.audio.turn.smart_turn.local_smart_turn_v3 import LocalSmartTurnAnalyzerV3
from pipecat.audio.vad.silero import SileroOnnxModel, SileroVADAnalyzer
from pipecat.audio.vad.vad_analyzer import VADAnalyzer, VADParams
from pipecat.frames.frames import (
    Frame,
    InterruptionFrame,
    MixerControlFrame,
    OutputAudioRawFrame,
    OutputImageRawFrame,
    SpriteFrame,
    TTSStoppedFrame,
)
from pipecat.processors.frame_processor import FrameDirection, FrameProcessor
from pipecat.services.tts_service import TTSService
from pipecat.transports.base_output import BaseOutputTransport
from pipecat.transports.base_transport import TransportParams

if TYPE_CHECKING:  # SmallWebRTC needs aiortc, which only the webrtc and agent extras install
    from pipecat.transports.smallwebrtc.connection import SmallWebRTCConnection
    from pipecat.transports.smallwebrtc.transport import SmallWebRTCOutputTransport, SmallWebRTCTransport

from tts_service.tested_version import TestedVersion

#: the Pipecat release line (major.minor) these internals were read from
TESTED_PIPECAT = TestedVersion("pipecat-ai", "1.14", contract_test="tests/test_pipecat_compat.py")

_silero_lock = threading.Lock()
_silero_session: Any = None
_smart_turn_lock = threading.Lock()
_smart_turn_session: Any = None


# -- TTS services -------------------------------------------------------------------------------


async def promote_pending_words(service: TTSService, context_id: str) -> None:
    """Promote everything the service's word matcher holds for ``context_id`` to a segment.

    In TOKEN mode Pipecat regroups tokens into sentences and buffers reported words until the
    sentence is complete; this finalizes the pending text now, through the service's own path
    that keeps the sequencer's frames in audio order.
    """
    sequencer = service._aggregated_frame_sequencer
    await service._push_sequencer_frames(await sequencer.finalize(context_id), context_id)


class FramesInAudioOrder(FrameProcessor):
    """Mixed in after a ``TTSService`` (``class S(TTSService, FramesInAudioOrder)``): downstream
    frames lose their pts once the service has done its bookkeeping, so every output transport
    queues them in order with the audio (see the module doc)."""

    #: keep Pipecat's pts, words released on the output's clock (how every TTS service behaves,
    #: and how Warmline's did before; ``benchmarks/overload_bench.py`` compares the two)
    release_words_on_clock = False

    async def push_frame(self, frame: Frame, direction: FrameDirection = FrameDirection.DOWNSTREAM) -> None:
        downstream = direction is FrameDirection.DOWNSTREAM and not self.release_words_on_clock
        if downstream and frame.pts and not isinstance(frame, OutputAudioRawFrame):
            frame.pts = None
        await super().push_frame(frame, direction)


# -- output transports --------------------------------------------------------------------------


#: frames an output transport handles itself, never queued behind its audio
_HANDLED_BY_THE_OUTPUT = (
    InterruptionFrame,
    OutputAudioRawFrame,
    OutputImageRawFrame,
    SpriteFrame,
    MixerControlFrame,
    TTSStoppedFrame,
)


class AudioOrderedOutputTransport(BaseOutputTransport):
    """An output transport that queues frames behind its audio instead of timing them by their pts.

    Pipecat releases frames with a pts (a TTS service's word frames, the end of an answer) on its
    clock, whatever happened to the audio before them; queued behind the audio instead, they leave
    exactly when that audio has been written, so they can never run ahead of it (a stalled loop,
    a paused bot). Subclasses may narrow ``queue_with_audio``.
    """

    def queue_with_audio(self, frame: Frame) -> bool:
        """True for a frame that waits for the audio queued before it: every timed frame but the
        output's own (audio, interruptions, images, the TTS's stop)."""
        return bool(frame.pts) and not isinstance(frame, _HANDLED_BY_THE_OUTPUT)

    async def _handle_frame(self, frame: Frame) -> None:
        sender = self._media_senders.get(frame.transport_destination)
        if sender is not None and self.queue_with_audio(frame):
            await sender.handle_sync_frame(frame)
            return
        await super()._handle_frame(frame)


# -- Smart Turn on one shared ONNX session --------------------------------------------------------


def smart_turn_session() -> Any:
    """The process's one Smart Turn v3.2 ONNX session, loaded on first use (blocking: off the loop)."""
    global _smart_turn_session
    with _smart_turn_lock:
        if _smart_turn_session is None:
            path = resources.files("pipecat.audio.turn.smart_turn.data").joinpath("smart-turn-v3.2-cpu.onnx")
            options = onnxruntime.SessionOptions()
            options.execution_mode = onnxruntime.ExecutionMode.ORT_SEQUENTIAL
            options.inter_op_num_threads = 1
            options.intra_op_num_threads = 1
            options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_ALL
            _smart_turn_session = onnxruntime.InferenceSession(str(path), sess_options=options)
        return _smart_turn_session


class _SharedSmartTurnAnalyzer(LocalSmartTurnAnalyzerV3):
    """Pipecat's Smart Turn v3 analyzer (its buffering, features and threshold) on the shared session."""

    def __init__(self, params: SmartTurnParams | None) -> None:  # no super().__init__: it loads a session
        BaseSmartTurn.__init__(self, params=params)
        self._log_data = False
        self._session = smart_turn_session()


def shared_smart_turn_analyzer(params: SmartTurnParams | None = None) -> LocalSmartTurnAnalyzerV3:
    """A ``LocalSmartTurnAnalyzerV3`` for one stream, on the process's shared ONNX session."""
    TESTED_PIPECAT.check()
    return _SharedSmartTurnAnalyzer(params)


# -- SmallWebRTC with another output ---------------------------------------------------------------


def smallwebrtc_transport(
    connection: SmallWebRTCConnection,
    params: TransportParams,
    output: type[SmallWebRTCOutputTransport],
) -> SmallWebRTCTransport:
    """A ``SmallWebRTCTransport`` whose ``output()`` is an ``output`` (a Pipecat output subclass)."""
    from pipecat.transports.smallwebrtc.transport import SmallWebRTCTransport

    TESTED_PIPECAT.check()
    transport = SmallWebRTCTransport(connection, params)
    transport._output = output(transport._client, transport._params, name=transport._output_name)
    return transport


# -- Silero on one shared ONNX session ------------------------------------------------------------


def silero_session() -> Any:
    """The process's one Silero ONNX session, loaded on first use (blocking: call off the loop)."""
    global _silero_session
    with _silero_lock:
        if _silero_session is None:
            path = resources.files("pipecat.audio.vad.data").joinpath("silero_vad.onnx")
            options = onnxruntime.SessionOptions()
            options.inter_op_num_threads = 1
            options.intra_op_num_threads = 1
            _silero_session = onnxruntime.InferenceSession(
                str(path), providers=["CPUExecutionProvider"], sess_options=options
            )
        return _silero_session


class _SharedSileroModel(SileroOnnxModel):
    """Pipecat's Silero wrapper (its state, context and input checks) on the shared session."""

    def __init__(self, session: Any) -> None:  # no super().__init__: that would load the model again
        self.session = session
        self.reset_states()  # type: ignore[no-untyped-call]
        self.sample_rates = [8000, 16000]


def shared_silero_analyzer(params: VADParams) -> SileroVADAnalyzer:
    """A ``SileroVADAnalyzer`` whose model runs on ``silero_session()`` (one stream per analyzer).

    Built as ``SileroVADAnalyzer.__init__`` builds one, minus the model load: the base
    analyzer's own setup, then the attributes Silero's constructor sets (its model and the two
    counters of its state resets).
    """
    TESTED_PIPECAT.check()
    analyzer = SileroVADAnalyzer.__new__(SileroVADAnalyzer)
    VADAnalyzer.__init__(analyzer, sample_rate=None, params=params)
    analyzer._model = _SharedSileroModel(silero_session())
    analyzer._windows_since_reset = 0
    analyzer._low_confidence_windows = 0
    return analyzer


__all__ = [
    "TESTED_PIPECAT",
    "AudioOrderedOutputTransport",
    "promote_pending_words",
    "shared_silero_analyzer",
    "shared_smart_turn_analyzer",
    "silero_session",
    "smallwebrtc_transport",
    "smart_turn_session",
]
