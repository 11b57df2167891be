"""The engine core stays sans-I/O: importing it pulls in no asyncio, torch, onnxruntime or sockets."""

from __future__ import annotations

import subprocess
import sys

FORBIDDEN = ("asyncio", "torch", "onnxruntime", "socket", "pipecat", "websockets", "aiortc")


def test_engine_core_imports_no_io_or_model_runtime() -> None:
    """A fresh interpreter importing every engine module has none of the forbidden modules loaded."""
    code = (
        "import sys\n"
        "import tts_service.engine.session, tts_service.engine.segmenter, tts_service.engine.timeline\n"
        "import tts_service.engine.conditioner, tts_service.engine.textclean, tts_service.engine.spoken\n"
        "import tts_service.engine.jobs, tts_service.engine.resample, tts_service.engine.types\n"
        f"bad = [m for m in {FORBIDDEN!r} if m in sys.modules]\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "", f"engine imports {out.stdout.strip()}"
