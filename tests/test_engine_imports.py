"""The engine core stays sans-I/O and owns its ports: importing it pulls in no asyncio, torch,
onnxruntime or sockets, and nothing of the backends that implement its protocol."""

from __future__ import annotations

import pkgutil
import subprocess
import sys
from pathlib import Path

import tts_service.engine

FORBIDDEN = ("asyncio", "torch", "onnxruntime", "socket", "pipecat", "livekit", "websockets", "aiortc")
ENGINE_MODULES = sorted(
    f"tts_service.engine.{m.name}"
    for m in pkgutil.iter_modules([str(Path(tts_service.engine.__file__).parent)])
)


def test_engine_core_imports_no_io_model_runtime_or_backend() -> None:
    """A fresh interpreter importing every engine module has none of the forbidden modules loaded."""
    assert "tts_service.engine.session" in ENGINE_MODULES and "tts_service.engine.turns" in ENGINE_MODULES
    code = (
        "import sys, importlib\n"
        f"for name in {ENGINE_MODULES!r}: importlib.import_module(name)\n"
        f"bad = [m for m in {FORBIDDEN!r} if m in sys.modules]\n"
        "bad += [m for m in sys.modules if m.startswith('tts_service.backends')]\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "", f"engine imports {out.stdout.strip()}"
