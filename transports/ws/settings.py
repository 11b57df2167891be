"""The WebSocket server's settings: one frozen value, checked once, shared by every connection.

Every limit a client could push against has a field here and a ``warmline serve`` flag.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tts_service.engine.clock import Clock, monotonic
from tts_service.engine.reading.lexicon import Lexicon
from tts_service.engine.types import check_sample_rate
from tts_service.errors import InvalidInputError
from tts_service.wire import Encoding


@dataclass(frozen=True, slots=True)
class ServerSettings:
    """How one server listens, who may connect, and the limits each connection lives within."""

    host: str = "127.0.0.1"
    port: int = 8765
    #: required on every WebSocket (Bearer header or ?token=) and on /metrics when set
    token: str | None = None
    #: serve a non-loopback address without a token (something else must guard it)
    insecure: bool = False
    #: browser Origins allowed to connect; empty means same-origin pages only, "*" any page
    allow_origins: tuple[str, ...] = ()
    #: voice of new connections; None is the backend's default
    voice: str | None = None
    #: words to respellings or phonemes for every session (``warmline serve --lexicon FILE``)
    lexicon: Lexicon = field(default_factory=Lexicon)
    sample_rate: int = 24000
    encoding: Encoding = Encoding.PCM16
    max_sessions: int = 64
    #: largest client message; larger ones get ``message_too_large`` (4x this closes with 1009)
    max_message_bytes: int = 65536
    #: text one turn may hold (a whole utterance, or the sum of a streamed turn's injects)
    max_turn_chars: int = 10_000
    #: audio one turn (one speech request) may make; past it the rest is dropped (``audio_too_long``)
    max_turn_audio_s: float = 600.0
    commands_per_s: float = 200.0
    command_burst: int = 400
    #: close a connection that sent nothing for this long while nothing was being spoken
    idle_timeout_s: float = 300.0
    #: whole utterances waiting behind the one being spoken (``busy`` beyond)
    max_queued_turns: int = 16
    #: messages waiting for a slow client before it is dropped (close 1008)
    send_queue_messages: int = 64
    #: how long the reader waits for a client to take its replies before dropping it (1008)
    stall_timeout_s: float = 10.0
    #: frames the server may run ahead of the listener's real-time playback
    lead_frames: int = 2
    #: how long to try to send a close frame to a client before giving up on it
    close_timeout_s: float = 2.0
    #: this server's replica id when it is one of several (``warmline serve --ray``): on ``ready``
    replica: str | None = None
    #: monotonic clock for pacing and the command rate (must be real time for a live server)
    clock: Clock = field(default=monotonic, compare=False)

    def __post_init__(self) -> None:
        check_sample_rate(self.sample_rate)
        if not isinstance(self.encoding, Encoding):
            raise InvalidInputError("encoding must be an Encoding")
        positive = {
            "max_sessions": self.max_sessions,
            "max_message_bytes": self.max_message_bytes,
            "max_turn_chars": self.max_turn_chars,
            "max_turn_audio_s": self.max_turn_audio_s,
            "commands_per_s": self.commands_per_s,
            "command_burst": self.command_burst,
            "idle_timeout_s": self.idle_timeout_s,
            "max_queued_turns": self.max_queued_turns,
            "send_queue_messages": self.send_queue_messages,
            "close_timeout_s": self.close_timeout_s,
            "stall_timeout_s": self.stall_timeout_s,
        }
        for name, value in positive.items():
            if not value > 0:
                raise InvalidInputError(f"{name} must be positive, not {value!r}")
        if self.lead_frames < 0:
            raise InvalidInputError(f"lead_frames must not be negative, not {self.lead_frames!r}")
        if not 0 <= self.port <= 65535:
            raise InvalidInputError(f"port {self.port} is not a TCP port")

    @property
    def hard_max_message_bytes(self) -> int:
        """Beyond this the WebSocket layer itself closes the connection (1009) instead of replying."""
        return max(4 * self.max_message_bytes, 1 << 20)


__all__ = ["ServerSettings"]
