"""The engine's commands: ``warmline speak`` (text to a WAV, streamed) and ``warmline bench``.

``speak`` drives the sans-I/O engine directly, with no event loop: it is also the shortest
example of using the engine alone. The ``warmline`` entry point itself is ``agent.cli``, which
registers these next to the server and agent commands.
"""

from __future__ import annotations

import argparse
import codecs
import os
import select
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from tts_service.backends import available_backends, create_backend
from tts_service.engine.reading.lexicon import Lexicon, LexiconError, parse_lexicon
from tts_service.engine.reading.preview import preview
from tts_service.engine.session import EngineSession, SessionConfig
from tts_service.engine.types import (
    SUPPORTED_SAMPLE_RATES,
    Done,
    ErrorEvent,
    Output,
    SampleFormat,
    SpeechFrame,
)
from tts_service.speech import write_wav

#: text handed to the engine at once when a whole file or stdin is spoken
_CHUNK_CHARS = 2048


@dataclass(slots=True)
class _Capture:
    """Frames collected by ``speak`` and the times that matter to a listener."""

    t_first_text: float | None = None
    t_first_frame: float | None = None
    pcm: list[bytes] = field(default_factory=list)
    samples: int = 0
    errors: list[str] = field(default_factory=list)
    done: bool = False

    def take(self, outputs: Sequence[Output]) -> None:
        for out in outputs:
            if isinstance(out, SpeechFrame):
                if self.t_first_frame is None:
                    self.t_first_frame = time.perf_counter()
                self.pcm.append(out.pcm16_bytes())
                self.samples += out.num_samples
            elif isinstance(out, ErrorEvent):
                self.errors.append(f"{out.code}: {out.message}")
            elif isinstance(out, Done):
                self.done = True


def _run_jobs(session: EngineSession, cap: _Capture) -> float:
    """Run every job the session wants now; returns the compute seconds spent."""
    spent = 0.0
    while True:
        cap.take(session.drain())
        job = session.next_job()
        if job is None:
            return spent
        t0 = time.perf_counter()
        result = job.run()
        spent += time.perf_counter() - t0
        session.complete(result)


def _feed_text(session: EngineSession, cap: _Capture, text: str) -> float:
    """Inject a whole text in pieces, speaking as it goes so the text buffer stays bounded."""
    spent = 0.0
    for i in range(0, len(text), _CHUNK_CHARS):
        if cap.t_first_text is None:
            cap.t_first_text = time.perf_counter()
        session.inject(text[i : i + _CHUNK_CHARS])
        spent += _run_jobs(session, cap)
    return spent


def _feed_stream(session: EngineSession, cap: _Capture, fd: int) -> float:
    """Inject stdin chunk by chunk as it arrives (``--tokens``), honouring hold timers."""
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    spent = 0.0
    while True:
        due = session.next_deadline_s()
        timeout = None if due is None else max(0.0, due - time.monotonic())
        readable, _, _ = select.select([fd], [], [], timeout)
        if not readable:
            spent += _run_jobs(session, cap)
            continue
        data = os.read(fd, 64)
        text = decoder.decode(data, final=not data)
        if text:
            if cap.t_first_text is None:
                cap.t_first_text = time.perf_counter()
            session.inject(text)
        spent += _run_jobs(session, cap)
        if not data:
            return spent


def read_lexicon(path: str | None, backend_name: str) -> Lexicon:
    """The lexicon in file ``path`` for ``backend_name``'s voice (empty without a path).

    Raises LexiconError naming the line it cannot read, or the phoneme symbol the voice lacks.
    """
    if path is None:
        return Lexicon()
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except (OSError, UnicodeDecodeError) as exc:
        raise LexiconError(f"cannot read the lexicon {path}: {exc}") from exc
    symbols = create_backend(backend_name).capabilities.phoneme_symbols
    try:
        return parse_lexicon(text, symbols=symbols)
    except LexiconError as exc:
        raise LexiconError(f"{path}: {exc}") from exc


def cmd_preview(args: argparse.Namespace) -> int:
    """``speak --dry-run``: print what the model would be given, one line per input; no synthesis."""
    capabilities = create_backend(args.backend).capabilities  # no load(): nothing is synthesized
    lexicon = read_lexicon(args.lexicon, args.backend)
    if args.text is not None and args.text != "-":
        print(preview(args.text, capabilities, lexicon=lexicon))
        return 0
    for line in sys.stdin:
        print(preview(line.rstrip("\n"), capabilities, lexicon=lexicon), flush=True)
    return 0


def cmd_speak(args: argparse.Namespace) -> int:
    if args.dry_run:
        return cmd_preview(args)
    t_load = time.perf_counter()
    backend = create_backend(args.backend)
    backend.load()
    load_s = time.perf_counter() - t_load
    config = SessionConfig(
        voice=args.voice,
        sample_rate=args.sample_rate,
        sample_format=SampleFormat.PCM16,
        speed=args.speed,
        seed=args.seed,
        lexicon=read_lexicon(args.lexicon, args.backend),
    )
    session = EngineSession(backend, config)
    cap = _Capture()
    t0 = time.perf_counter()
    if args.text is not None:
        spent = _feed_text(session, cap, args.text)
    elif args.tokens:
        spent = _feed_stream(session, cap, sys.stdin.fileno())
    else:
        spent = _feed_text(session, cap, sys.stdin.read())
    session.flush()
    spent += _run_jobs(session, cap)
    wall_s = time.perf_counter() - t0
    session.close()
    write_wav(args.output, b"".join(cap.pcm), args.sample_rate)

    audio_s = cap.samples / args.sample_rate
    first = (
        "n/a (nothing speakable)"
        if cap.t_first_frame is None or cap.t_first_text is None
        else f"{(cap.t_first_frame - cap.t_first_text) * 1000:.1f} ms"
    )
    rtf = spent / audio_s if audio_s else 0.0
    print(f"wrote {args.output}: {audio_s:.2f} s of audio at {args.sample_rate} Hz ({len(cap.pcm)} frames)")
    print(f"model load {load_s * 1000:.0f} ms; time to first frame {first}")
    print(
        f"real-time factor {rtf:.4f} (compute {spent * 1000:.0f} ms for {audio_s:.2f} s; "
        f"{(1 / rtf if rtf else float('inf')):.0f}x real time); wall {wall_s * 1000:.0f} ms"
    )
    for err in cap.errors:
        print(f"warning: {err}", file=sys.stderr)
    return 0


def cmd_bench(args: argparse.Namespace) -> int:
    from tts_service.benchmark import run_benchmark  # heavy imports only when benchmarking

    return run_benchmark(args)


def add_engine_commands(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``speak`` and ``bench`` on the ``warmline`` command line."""
    speak = sub.add_parser("speak", help="speak text (argument or stdin) into a WAV file, streamed")
    speak.add_argument("text", nargs="?", help="text to speak; read from stdin when absent")
    speak.add_argument("-o", "--output", default="out.wav", help="WAV file to write (default out.wav)")
    speak.add_argument("--voice", default=None, help="voice name (default: the backend's, 'heart')")
    speak.add_argument(
        "--sample-rate",
        type=int,
        default=24000,
        choices=SUPPORTED_SAMPLE_RATES,
        help="output sample rate in Hz (default 24000)",
    )
    speak.add_argument("--speed", type=float, default=1.0, help="speaking rate, 0.5..2.0 (default 1.0)")
    speak.add_argument("--seed", type=int, default=None, help="fix the model's noise for identical output")
    speak.add_argument(
        "--tokens",
        action="store_true",
        help="inject stdin chunk by chunk as it arrives (pipe an LLM into it to hear streaming)",
    )
    speak.add_argument("--backend", default="hibari", choices=available_backends(), help="model backend")
    speak.add_argument("--lexicon", default=None, metavar="FILE", help="pronunciations (docs/READING.md)")
    speak.add_argument(
        "--dry-run",
        action="store_true",
        help="print the text the model would receive (units joined by a space) and synthesize nothing; "
        "with '-' or no text, one line out per line of stdin",
    )
    speak.set_defaults(func=cmd_speak)

    bench = sub.add_parser("bench", help="measure latency, real-time factor, capacity, joins; write JSON")
    bench.add_argument("--out", default="bench-out", help="folder for the JSON and PNG (default bench-out)")
    bench.add_argument(
        "--duration", type=float, default=60.0, help="seconds of each confirmation run (default 60)"
    )
    bench.add_argument("--sessions", type=int, default=100, help="concurrent sessions to try (default 100)")
    bench.add_argument("--quick", action="store_true", help="short run for a smoke test (5 s, few sessions)")
    bench.set_defaults(func=cmd_bench)
