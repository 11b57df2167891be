"""OpenAI's speech API: time to first and last byte, streamed vs "synthesize it all, then send".

    python benchmarks/openai_bench.py [--repeats 5] [--out bench-out]

One process serves both on 127.0.0.1 over one warm hibari model: ``warmline serve``'s app
(``POST /v1/audio/speech``, streaming from the first frame) and, as the baseline, a route that
renders the whole input (``tts_service.speech.spoken_pcm``, the same voice) and then sends it,
encoded by the same encoder. The real ``openai`` client (on a thread of its own) asks each for
``pcm`` and ``mp3`` at three input lengths; every figure is the median of ``--repeats`` and the
ratio is baseline over streamed, from the same run. Prints a table and writes
``<out>/openai_bench.json``. Never asserts a target.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import platform
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # run from a checkout: ``python benchmarks/openai_bench.py``

from openai import OpenAI  # noqa: E402
from starlette.applications import Starlette  # noqa: E402
from starlette.requests import Request  # noqa: E402
from starlette.responses import Response  # noqa: E402
from starlette.routing import Mount, Route  # noqa: E402

from transports.openai.encoders import FORMATS, new_encoder  # noqa: E402
from transports.serve import serving  # noqa: E402
from transports.ws.server import create_app  # noqa: E402
from transports.ws.settings import ServerSettings  # noqa: E402
from tts_service.backends.hibari.backend import HibariBackend  # noqa: E402
from tts_service.runtime import EngineRuntime  # noqa: E402
from tts_service.speech import spoken_pcm  # noqa: E402

SENTENCE = "Thanks for calling, your table for two is booked for eight tonight."
TEXTS = {
    "one sentence": SENTENCE,
    "four sentences": " ".join(
        [
            SENTENCE,
            "We open at noon on weekdays and at ten on weekends.",
            "Parking is free after six, right behind the building.",
            "Is there anything else I can help you with today?",
        ]
    ),
}
TEXTS["twelve sentences"] = " ".join([TEXTS["four sentences"]] * 3)


def baseline_app(backend: HibariBackend) -> Starlette:
    """``POST /v1/audio/speech`` the plain way: the whole input rendered, encoded, then sent."""

    async def whole(request: Request) -> Response:
        body = json.loads(await request.body())
        pcm = await asyncio.to_thread(spoken_pcm, backend, body["input"], 24000)
        encoder = new_encoder(body["response_format"], 24000)
        data = encoder.encode(pcm) + encoder.finish()
        return Response(data, media_type=FORMATS[body["response_format"]].media_type)

    return Starlette(routes=[Route("/v1/audio/speech", whole, methods=["POST"])])


def timed(client: OpenAI, text: str, response_format: str) -> tuple[float, float, int]:
    """(seconds to the first byte, to the last byte, bytes) for one request, read as it streams."""
    started = time.perf_counter()
    first = None
    size = 0
    with client.audio.speech.with_streaming_response.create(
        model="tts-1",
        voice="alloy",
        input=text,
        response_format=response_format,  # type: ignore[arg-type]
    ) as response:
        for chunk in response.iter_bytes():
            if chunk and first is None:
                first = time.perf_counter() - started
            size += len(chunk)
    last = time.perf_counter() - started
    return first if first is not None else last, last, size


def summary(
    name: str, text: str, response_format: str, figures: dict[str, list[tuple[float, float, int]]]
) -> Any:
    """Medians of each way's runs, and baseline over streamed."""
    row: dict[str, Any] = {"input": name, "chars": len(text), "format": response_format}
    for way, runs in figures.items():
        row[f"{way}_first_byte_ms"] = round(1000 * statistics.median(r[0] for r in runs), 1)
        row[f"{way}_last_byte_ms"] = round(1000 * statistics.median(r[1] for r in runs), 1)
        row[f"{way}_bytes"] = runs[0][2]
    for edge in ("first", "last"):
        row[f"{edge}_byte_ratio"] = round(
            row[f"baseline_{edge}_byte_ms"] / row[f"streamed_{edge}_byte_ms"], 2
        )
    return row


async def run(repeats: int) -> dict[str, Any]:
    backend = HibariBackend()
    backend.load()
    async with EngineRuntime(backend, workers=2) as runtime:
        app = Starlette(
            routes=[
                Mount("/baseline", baseline_app(backend)),
                Mount("/", create_app(runtime, ServerSettings())),
            ]
        )
        async with serving(app, ServerSettings(), host="127.0.0.1", port=0) as (host, port):
            clients = {
                "streamed": OpenAI(base_url=f"http://{host}:{port}/v1", api_key="unused"),
                "baseline": OpenAI(base_url=f"http://{host}:{port}/baseline/v1", api_key="unused"),
            }
            await asyncio.to_thread(timed, clients["streamed"], "Warm up.", "mp3")
            await asyncio.to_thread(timed, clients["baseline"], "Warm up.", "mp3")
            rows = []
            for name, text in TEXTS.items():
                for response_format in ("pcm", "mp3"):
                    figures: dict[str, list[tuple[float, float, int]]] = {"streamed": [], "baseline": []}
                    for _ in range(repeats):
                        for way, client in clients.items():  # alternated: both see the same machine
                            figures[way].append(await asyncio.to_thread(timed, client, text, response_format))
                    rows.append(summary(name, text, response_format, figures))
            for client in clients.values():
                client.close()
    return {
        "machine": {"python": platform.python_version(), "cpu": platform.processor() or platform.machine()},
        "repeats": repeats,
        "rows": rows,
    }


def print_table(result: dict[str, Any]) -> None:
    print(f"OpenAI speech API, median of {result['repeats']}: streamed vs whole-then-send (same run)")
    print(f"{'input':17} {'fmt':4} {'first byte ms':>22} {'x':>6} {'last byte ms':>22} {'x':>6}")
    for r in result["rows"]:
        first = f"{r['streamed_first_byte_ms']:.0f} vs {r['baseline_first_byte_ms']:.0f}"
        last = f"{r['streamed_last_byte_ms']:.0f} vs {r['baseline_last_byte_ms']:.0f}"
        print(
            f"{r['input']:17} {r['format']:4} {first:>22} {r['first_byte_ratio']:>6.2f} "
            f"{last:>22} {r['last_byte_ratio']:>6.2f}"
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--out", default="bench-out")
    args = parser.parse_args()
    result = asyncio.run(run(args.repeats))
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "openai_bench.json").write_text(json.dumps(result, indent=1))
    print_table(result)
    print(f"\nwrote {out / 'openai_bench.json'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
