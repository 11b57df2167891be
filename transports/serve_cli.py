"""``warmline serve``: the WebSocket server and browser player on one warm model.

Binds 127.0.0.1 by default and refuses any other address without ``--token`` (or ``--insecure``),
before loading anything. uvicorn runs in this process's event loop. SIGTERM (or Ctrl-C) drains:
``/healthz`` answers 503, new WebSockets get 1013, every turn in progress finishes and sends its
``done``, then its connection closes with 1001; after ``--drain-s`` what is left is closed with
1012. A second Ctrl-C ends it all at once. Then the sessions are freed, the workers stop and the
process exits 0 without a trace. ``--ray`` serves the same app from replicas of a Ray Serve
application instead (``transports.ray``), with the same drain.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import importlib.util
import os
import sys
from typing import Any

from transports.drain import DEFAULT_DRAIN_S
from transports.ray.cluster import RayOptions  # no Ray import: only what --ray's flags mean
from transports.security import INSECURE_ENV, TOKEN_ENV, check_bind, insecure_from_env
from transports.serve import ServeOptions, serve_app
from transports.ws.server import check_voice, create_app
from transports.ws.settings import ServerSettings
from tts_service.backends import available_backends
from tts_service.engine.types import SUPPORTED_SAMPLE_RATES
from tts_service.errors import InvalidInputError
from tts_service.wire import Encoding


def settings_from_args(args: argparse.Namespace) -> ServerSettings:
    """ServerSettings from parsed ``serve`` arguments (raises InvalidInputError on bad values)."""
    return ServerSettings(
        host=args.host,
        port=args.port,
        token=args.token or None,
        insecure=args.insecure or insecure_from_env(os.environ),
        allow_origins=tuple(args.allow_origin or ()),
        voice=args.voice,
        sample_rate=args.sample_rate,
        encoding=Encoding(args.encoding),
        max_sessions=args.max_sessions,
        max_message_bytes=args.max_message_bytes,
        max_turn_chars=args.max_turn_chars,
        commands_per_s=args.commands_per_s,
        command_burst=args.command_burst,
        idle_timeout_s=args.idle_timeout_s,
        max_queued_turns=args.max_queued_turns,
        send_queue_messages=args.send_queue_messages,
        lead_frames=args.lead_frames,
    )


def backend_options(args: argparse.Namespace) -> dict[str, Any]:
    """``create_backend``'s options from ``serve``'s flags: piper takes its voices folder (else
    ``$WARMLINE_VOICES``) and ``--voice`` as its default voice."""
    voices_dir = getattr(args, "voices_dir", None)
    if args.backend != "piper":
        if voices_dir is not None:
            raise InvalidInputError("--voices-dir goes with --backend piper")
        return {}
    options: dict[str, Any] = {"voices_dir": voices_dir}
    if args.voice:
        options["default_voice"] = args.voice
    return options


def cmd_serve(args: argparse.Namespace) -> int:
    settings = settings_from_args(args)
    check_bind(settings.host, token=settings.token, insecure=settings.insecure)
    if args.ray:
        return _serve_on_ray(args, settings)
    for flag in ("replicas", "min_replicas", "max_replicas", "target_sessions", "ray_address"):
        if getattr(args, flag) is not None:
            raise InvalidInputError(f"--{flag.replace('_', '-')} goes with --ray")
    with contextlib.suppress(KeyboardInterrupt):  # a Ctrl-C while the model is still loading
        options = ServeOptions(
            host=settings.host,
            port=settings.port,
            backend=args.backend,
            backend_options=backend_options(args),
            workers=args.workers,
            max_sessions=settings.max_sessions,
            ws_max_bytes=settings.hard_max_message_bytes,
            banner=lambda url: f"warmline: serving on http://{url}/ (WebSocket ws://{url}/ws)",
            drain_s=args.drain_s,
        )
        asyncio.run(
            serve_app(
                lambda runtime, drain: create_app(runtime, settings, drain=drain),
                options,
                prepare=lambda runtime: check_voice(settings, runtime),
            )
        )
    print("warmline: stopped", file=sys.stderr)
    return 0


def _serve_on_ray(args: argparse.Namespace, settings: ServerSettings) -> int:
    if importlib.util.find_spec("ray") is None:
        raise InvalidInputError("--ray needs Ray Serve: pip install 'warmline[ray]'")
    from transports.ray.cluster import serve_on_ray

    autoscale = args.min_replicas is not None or args.max_replicas is not None
    if autoscale and args.replicas is not None:
        raise InvalidInputError("give --replicas, or --min-replicas/--max-replicas to autoscale, not both")
    d = RayOptions()
    options = RayOptions(
        replicas=None if autoscale else (args.replicas or d.replicas),
        min_replicas=d.min_replicas if args.min_replicas is None else args.min_replicas,
        max_replicas=d.max_replicas if args.max_replicas is None else args.max_replicas,
        target_sessions=args.target_sessions,
        address=args.ray_address,
        replica_cpus=args.replica_cpus,
    )
    with contextlib.suppress(KeyboardInterrupt):  # a Ctrl-C while Ray is still starting
        serve_on_ray(settings, options, backend=args.backend, workers=args.workers, drain_s=args.drain_s)
    print("warmline: stopped", file=sys.stderr)
    return 0


def add_serve_command(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``serve`` on the ``warmline`` command line."""
    d = ServerSettings()
    p = sub.add_parser(
        "serve",
        help="WebSocket server (protocol v1, dia2stream compatible) and browser player",
        description="Serve speech over WebSocket on / and /ws, a browser player on /, /healthz and /metrics.",
    )
    p.add_argument("--host", default=d.host, help=f"address to bind (default {d.host})")
    p.add_argument("--port", type=int, default=d.port, help=f"TCP port, 0: any free (default {d.port})")
    p.add_argument(
        "--token",
        default=os.environ.get(TOKEN_ENV),
        help=f"require this token (Authorization: Bearer, or ?token=); default ${TOKEN_ENV}",
    )
    p.add_argument(
        "--insecure",
        action="store_true",
        help=f"allow a non-loopback --host without a token (default ${INSECURE_ENV}=1)",
    )
    p.add_argument(
        "--allow-origin",
        action="append",
        metavar="ORIGIN",
        help="browser Origin allowed to connect (repeatable; '*' for any; default same-origin only)",
    )
    p.add_argument("--voice", default=None, help="voice of new sessions (default: the backend's, 'heart')")
    p.add_argument("--sample-rate", type=int, default=d.sample_rate, choices=SUPPORTED_SAMPLE_RATES)
    p.add_argument("--encoding", default=d.encoding.value, choices=[e.value for e in Encoding])
    p.add_argument("--max-sessions", type=int, default=d.max_sessions, help=f"default {d.max_sessions}")
    p.add_argument("--workers", type=int, default=2, help="model worker threads (default 2)")
    p.add_argument("--backend", default="hibari", choices=available_backends(), help="model backend")
    p.add_argument(
        "--voices-dir",
        default=None,
        metavar="DIR",
        help="piper: serve every NAME.onnx + NAME.onnx.json in DIR (default $WARMLINE_VOICES)",
    )
    p.add_argument(
        "--drain-s",
        type=float,
        default=DEFAULT_DRAIN_S,
        help=f"after SIGTERM, how long turns in progress may take to finish (default {DEFAULT_DRAIN_S:g})",
    )
    cluster = p.add_argument_group(
        "Ray Serve (pip install 'warmline[ray]')",
        "Serve from replicas of a Ray Serve application, each a warm model with up to --max-sessions",
    )
    cluster.add_argument("--ray", action="store_true", help="serve from Ray Serve replicas")
    r = RayOptions()
    cluster.add_argument(
        "--replicas", type=int, default=None, help=f"a fixed number of replicas (default {r.replicas})"
    )
    cluster.add_argument(
        "--min-replicas",
        type=int,
        default=None,
        help=f"autoscale: at least this many (default {r.min_replicas})",
    )
    cluster.add_argument(
        "--max-replicas",
        type=int,
        default=None,
        help=f"autoscale: at most this many (default {r.max_replicas})",
    )
    cluster.add_argument(
        "--target-sessions",
        type=int,
        default=None,
        help="autoscale: ongoing sessions per replica to aim for (default half of --max-sessions)",
    )
    cluster.add_argument(
        "--ray-address", default=None, help="join this Ray cluster (default: start one on this machine)"
    )
    cluster.add_argument(
        "--replica-cpus",
        type=float,
        default=r.replica_cpus,
        help=f"CPUs Ray reserves per replica (default {r.replica_cpus:g})",
    )
    limits = p.add_argument_group("limits per connection")
    limits.add_argument("--max-message-bytes", type=int, default=d.max_message_bytes)
    limits.add_argument("--max-turn-chars", type=int, default=d.max_turn_chars)
    limits.add_argument("--commands-per-s", type=float, default=d.commands_per_s)
    limits.add_argument("--command-burst", type=int, default=d.command_burst)
    limits.add_argument("--idle-timeout-s", type=float, default=d.idle_timeout_s)
    limits.add_argument("--max-queued-turns", type=int, default=d.max_queued_turns)
    limits.add_argument("--send-queue-messages", type=int, default=d.send_queue_messages)
    limits.add_argument(
        "--lead-frames", type=int, default=d.lead_frames, help="frames sent ahead of real time (default 2)"
    )
    p.set_defaults(func=cmd_serve)


__all__ = ["add_serve_command", "backend_options", "cmd_serve", "settings_from_args"]
