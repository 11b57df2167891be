"""A session's settings: one frozen value, checked against the backend before it is used.

Never imports asyncio, sockets, torch or onnxruntime.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tts_service.engine.ports import Capabilities
from tts_service.engine.reading.lexicon import Lexicon
from tts_service.engine.types import SampleFormat, check_sample_rate
from tts_service.errors import InvalidInputError, InvalidSpeedError


@dataclass(frozen=True, slots=True)
class SessionConfig:
    """Per-session settings; ``voice`` None means the backend's default."""

    voice: str | None = None
    sample_rate: int = 24000
    sample_format: SampleFormat = SampleFormat.PCM16
    speed: float = 1.0
    #: fixes the model's noise so the same text gives the same samples
    seed: int | None = None
    first_unit_hold_s: float = 0.15
    tail_hold_s: float = 0.6
    #: the bounded text buffer: text accepted but not yet spoken
    max_text_chars: int = 100_000
    #: the most audio one turn may make (seconds at its speed); past it the rest of the turn's
    #: text is dropped with an ``audio_too_long`` error. 10 minutes: 10,000 characters of prose
    #: read at speed 1.0, while hostile text (spelled capitals, digits) would take far longer
    max_turn_audio_s: float = 600.0
    #: unit backends: synthesize the next unit once less than this much audio is pending
    refill_below_ms: int = 1200
    #: frame backends: step at most this many frames ahead of the listener
    lookahead_frames: int = 3
    pause_fade_ms: float = 10.0
    #: pause emits one last faded frame (True), or nothing, for transports that fade out
    #: themselves; either way ``Paused.num_samples`` counts exactly the samples handed out
    pause_fade_frame: bool = True
    #: when a real-time listener would run dry within this long and no unit is queued, speak the
    #: complete words held (a cut at a word beats a gap in the audio)
    starve_guard_ms: int = 250
    #: words to respellings or phonemes (``reading.lexicon``), for this session's turns
    lexicon: Lexicon = field(default_factory=Lexicon)
    #: the language the text is read in (``reading.LANGUAGES``; others are read as written)
    language: str = "en"


def check_config(config: SessionConfig, capabilities: Capabilities) -> None:
    """Raise the typed error for the first setting ``capabilities`` (or the engine) cannot take."""
    check_sample_rate(config.sample_rate)
    if not isinstance(config.sample_format, SampleFormat):
        raise InvalidInputError("sample_format must be a SampleFormat (use SampleFormat.parse)")
    lo, hi = capabilities.speed_range
    if not isinstance(config.speed, int | float) or not lo <= float(config.speed) <= hi:
        raise InvalidSpeedError(f"speed {config.speed!r} is outside {lo}..{hi}")
    if config.max_text_chars < 1 or config.lookahead_frames < 1:
        raise InvalidInputError("max_text_chars and lookahead_frames must be positive")
    if not config.max_turn_audio_s > 0:  # NaN fails this too
        raise InvalidInputError(f"max_turn_audio_s must be positive, not {config.max_turn_audio_s!r}")


__all__ = ["SessionConfig", "check_config"]
