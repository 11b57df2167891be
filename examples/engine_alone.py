"""The engine alone: no asyncio, no server. Streams LLM-like tokens into a session and writes a WAV.

    python examples/engine_alone.py out.wav

Shows the four things a caller does: verbs in, jobs run, outputs drained, a pause honoured.
"""

from __future__ import annotations

import sys
import wave

from tts_service.backends import create_backend
from tts_service.engine.session import EngineSession, SessionConfig
from tts_service.engine.types import Done, Paused, SpeechFrame

TOKENS = ["Sure", ",", " your", " table", " for", " two", " is", " booked", " at", " 7", ":", "30", "."]
TOKENS += [" The", " total", " is", " $", "3", ".", "50", ",", " and", " parking", " is", " free", "."]


def main(path: str) -> None:
    backend = create_backend("hibari")
    backend.load()  # warm once; share the backend across sessions
    session = EngineSession(backend, SessionConfig(sample_rate=16000, seed=1))
    pcm: list[bytes] = []

    def pump() -> None:
        session.run_jobs()  # model compute, inline; the async runtime runs jobs on worker threads
        for out in session.drain():
            if isinstance(out, SpeechFrame):
                pcm.append(out.pcm16_bytes())
            elif isinstance(out, Paused):
                print(f"paused after: {out.spoken!r}")
            elif isinstance(out, Done):
                print(f"done: {out.num_samples / 16000:.2f} s")

    session.start()
    for token in TOKENS:
        session.inject(token)
        pump()
    session.flush()
    pump()
    with wave.open(path, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(16000)
        w.writeframes(b"".join(pcm))
    print(f"wrote {path}: {len(pcm)} frames of 80 ms")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "engine_alone.wav")
