"""Run the Warmline engine benchmark without the CLI: ``python benchmarks/engine_bench.py --quick``.

Same flags and same code as ``warmline bench`` (``tts_service.benchmark.run_benchmark``).
"""

from __future__ import annotations

import argparse
import sys

from tts_service.benchmark import run_benchmark


def main() -> int:
    parser = argparse.ArgumentParser(description="Warmline engine vs naive sentence stitching.")
    parser.add_argument("--out", default="bench-out", help="folder for the JSON and PNG (default bench-out)")
    parser.add_argument(
        "--duration", type=float, default=60.0, help="seconds of the capacity run (default 60)"
    )
    parser.add_argument("--sessions", type=int, default=100, help="concurrent sessions to try (default 100)")
    parser.add_argument("--quick", action="store_true", help="short run for a smoke test (5 s, few sessions)")
    return run_benchmark(parser.parse_args())


if __name__ == "__main__":
    sys.exit(main())
