"""Speak text through a running ``warmline serve`` and save the audio as a WAV file.

    warmline serve &                                   # in another terminal
    python examples/ws_client.py "Hello there, how can I help?" -o hello.wav
    python examples/ws_client.py --tokens "Streamed token by token, like an LLM." -o streamed.wav
    python examples/ws_client.py --sample-rate 8000 --encoding mulaw "Telephone quality." -o phone.wav

Without ``--tokens`` the text is one utterance (``start``, then wait for ``done``: exactly what a
dia2stream client does). With ``--tokens`` the connection is put in streaming mode and the text is
injected a few characters at a time, then flushed. Prints the time to the first frame.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
import wave
from typing import Any

import numpy as np
from websockets.asyncio.client import ClientConnection, connect

from tts_service import wire as wp


class Capture:
    """The audio received, and when its first frame came (perf_counter seconds)."""

    def __init__(self) -> None:
        self.pcm: list[np.ndarray] = []
        self.first_frame_s: float | None = None


async def receive_until(ws: ClientConnection, event: str, capture: Capture) -> dict[str, Any]:
    """Collect audio into ``capture`` until ``event`` arrives; exit on an error event."""
    while True:
        message = await ws.recv()
        if isinstance(message, bytes):
            if capture.first_frame_s is None:
                capture.first_frame_s = time.perf_counter()
            capture.pcm.append(wp.audio_to_pcm16(wp.decode_audio_frame(message)))
            continue
        ev = wp.decode_event(message)
        if ev["event"] == "error":
            raise SystemExit(f"server error {ev['code']}: {ev['message']}")
        if ev["event"] == event:
            return ev


async def speak(args: argparse.Namespace) -> int:
    headers = {"Authorization": f"Bearer {args.token}"} if args.token else None
    async with connect(args.url, additional_headers=headers, max_size=2**22) as ws:
        ready = wp.decode_event(str(await ws.recv()))
        config: dict[str, Any] = {"cmd": "config", "streaming": args.tokens}
        if args.sample_rate:
            config["sample_rate"] = args.sample_rate
        if args.encoding:
            config["encoding"] = args.encoding
        await ws.send(json.dumps(config))
        settings = await receive_until(ws, "configured", Capture())
        rate = int(settings["sample_rate"])
        voice, encoding = settings["voice"], settings["encoding"]
        print(f"connected: protocol {ready['protocol']}, voice {voice}, {rate} Hz {encoding}")

        capture = Capture()
        t0 = time.perf_counter()
        receiver = asyncio.create_task(receive_until(ws, "done", capture), name="ws-client-receiver")
        if args.tokens:
            await ws.send(json.dumps({"cmd": "start", "text": ""}))
            for i in range(0, len(args.text), args.token_chars):
                await ws.send(json.dumps({"cmd": "inject", "text": args.text[i : i + args.token_chars]}))
                await asyncio.sleep(args.token_delay_s)
            await ws.send(json.dumps({"cmd": "flush"}))
        else:
            await ws.send(json.dumps({"cmd": "start", "text": args.text}))
        await receiver
    pcm = capture.pcm
    audio = np.concatenate(pcm) if pcm else np.zeros(0, np.int16)
    with wave.open(args.output, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(audio.astype("<i2").tobytes())
    first = capture.first_frame_s
    shown = "n/a (nothing speakable)" if first is None else f"{(first - t0) * 1000:.0f} ms"
    print(f"wrote {args.output}: {len(audio) / rate:.2f} s in {len(pcm)} frames; first frame after {shown}")
    return 0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("text", help="text to speak")
    p.add_argument("-o", "--output", default="ws_out.wav", help="WAV file to write (default ws_out.wav)")
    p.add_argument("--url", default="ws://127.0.0.1:8765/ws", help="server (default ws://127.0.0.1:8765/ws)")
    p.add_argument("--token", default=None, help="the server's --token, if it has one")
    p.add_argument("--tokens", action="store_true", help="stream the text token by token (streaming mode)")
    p.add_argument("--token-chars", type=int, default=4, help="characters per injected token (default 4)")
    p.add_argument("--token-delay-s", type=float, default=0.03, help="pause between tokens (default 0.03)")
    p.add_argument("--sample-rate", type=int, choices=[8000, 16000, 24000, 48000], default=None)
    p.add_argument("--encoding", choices=["pcm16", "mulaw"], default=None)
    return asyncio.run(speak(p.parse_args(argv)))


if __name__ == "__main__":
    sys.exit(main())
