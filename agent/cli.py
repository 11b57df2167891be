"""The ``warmline`` command line: every subcommand of every layer, registered in one place.

Lives in ``agent`` because it is the top layer: it may import the transports and the engine,
while they never import it. Errors a user can cause print one line and exit 2.
"""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Sequence

from agent.call_cli import add_call_command
from transports.serve_cli import add_serve_command
from tts_service.cli import add_engine_commands
from tts_service.errors import WarmlineError


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="warmline", description="Persistent-state streaming TTS for voice calls."
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="log engine state transitions")
    sub = parser.add_subparsers(dest="command", required=True)
    add_engine_commands(sub)
    add_serve_command(sub)
    add_call_command(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(
        level=logging.DEBUG if args.verbose else logging.INFO,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    try:
        return int(args.func(args))
    except WarmlineError as exc:
        print(f"warmline: error ({exc.code}): {exc}", file=sys.stderr)
        if exc.operator_hint:
            print(f"warmline: {exc.operator_hint}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("warmline: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
