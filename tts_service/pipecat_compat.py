"""Every use of Pipecat's private internals, in one place, checked against the versions we know.

Pipecat's public API does not cover everything Warmline needs. Each reach past it lives here,
named for what it does, so that a Pipecat release that moves one breaks this module and its
contract test (``tests/test_pipecat_compat.py``) loudly, instead of silently changing how a
call behaves:

* ``shared_silero_analyzer``: a ``SileroVADAnalyzer`` on one process-wide ONNX session. Pipecat
  loads the model per analyzer (about 5 MB and 50 ms, on the event loop, for every call); the
  session is stateless and thread-safe, the recurrent state lives in each ``SileroOnnxModel``.

``TESTED_PIPECAT`` is the release line this module was written against; ``check_pipecat()`` logs
one warning on another (the contract test tells whether it still holds). This module imports
Pipecat at import time: only modules that already need Pipecat import it.
"""

from __future__ import annotations

import logging
import threading
from importlib import resources
from importlib.metadata import version
from typing import Any

import onnxruntime
from pipecat.audio.vad.silero import SileroOnnxModel, SileroVADAnalyzer
from pipecat.audio.vad.vad_analyzer import VADAnalyzer, VADParams

log = logging.getLogger("warmline.pipecat")

#: the Pipecat release line (major.minor) these internals were read from
TESTED_PIPECAT = "1.14"
PIPECAT_VERSION = version("pipecat-ai")

_warned = False
_silero_lock = threading.Lock()
_silero_session: Any = None


def check_pipecat() -> bool:
    """True on the tested release line; otherwise logs one warning and returns False."""
    global _warned
    tested = PIPECAT_VERSION.split(".")[:2] == TESTED_PIPECAT.split(".")
    if not tested and not _warned:
        _warned = True
        log.warning(
            "pipecat-ai %s: Warmline's compat module was written against %s.x; "
            "run tests/test_pipecat_compat.py to check it still holds",
            PIPECAT_VERSION,
            TESTED_PIPECAT,
        )
    return tested


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
    check_pipecat()
    analyzer = SileroVADAnalyzer.__new__(SileroVADAnalyzer)
    VADAnalyzer.__init__(analyzer, sample_rate=None, params=params)
    analyzer._model = _SharedSileroModel(silero_session())
    analyzer._windows_since_reset = 0
    analyzer._low_confidence_windows = 0
    return analyzer


__all__ = [
    "PIPECAT_VERSION",
    "TESTED_PIPECAT",
    "check_pipecat",
    "shared_silero_analyzer",
    "silero_session",
]
