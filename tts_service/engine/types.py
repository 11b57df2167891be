"""Values that leave the engine: 80 ms speech frames, word marks and events.

All positions are integer sample counts at the frame's own sample rate, counted from the start
of the turn. Seconds appear only in helper properties for the edges (JSON, Pipecat pts).
``SpeechFrame`` is also importable as ``Frame``, its name before 0.2.
This module must never import asyncio, torch, onnxruntime or anything that does I/O.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from tts_service.dsp import float_to_pcm16
from tts_service.errors import UnsupportedFormatError, UnsupportedSampleRateError

FRAME_MS = 80
FRAME_S = FRAME_MS / 1000
SUPPORTED_SAMPLE_RATES: tuple[int, ...] = (8000, 16000, 24000, 48000)


def frame_samples(sample_rate: int) -> int:
    """Samples in one 80 ms frame at ``sample_rate`` (1920 at 24 kHz, 640 at 8 kHz)."""
    check_sample_rate(sample_rate)
    return sample_rate * FRAME_MS // 1000


def check_sample_rate(sample_rate: int) -> int:
    """Return ``sample_rate`` if the engine can produce it, else raise UnsupportedSampleRateError."""
    if (
        isinstance(sample_rate, bool)
        or not isinstance(sample_rate, int)
        or (sample_rate not in SUPPORTED_SAMPLE_RATES)
    ):
        raise UnsupportedSampleRateError(
            f"sample rate {sample_rate!r} is not supported; use one of "
            f"{', '.join(str(r) for r in SUPPORTED_SAMPLE_RATES)}"
        )
    return sample_rate


class SampleFormat(enum.Enum):
    """How a frame's samples are stored."""

    PCM16 = "pcm16"
    FLOAT32 = "float32"

    @classmethod
    def parse(cls, value: SampleFormat | str) -> SampleFormat:
        """Accept an enum member or its string value; raise UnsupportedFormatError otherwise."""
        if isinstance(value, SampleFormat):
            return value
        try:
            return cls(value)
        except ValueError:
            raise UnsupportedFormatError(
                f"sample format {value!r} is not supported; use 'pcm16' or 'float32'"
            ) from None


@dataclass(frozen=True, slots=True)
class WordMark:
    """One word of the source text and where its audio lies, in samples.

    In a ``SpeechFrame`` or ``Paused`` event: at the output rate, from the start of the turn. From
    a backend (``ports.UnitAudio``, ``ports.FrameStep``): at the model's rate, from the start of
    the audio it came with. Producers move marks from the second frame of reference to the first.
    """

    word: str
    start_sample: int
    end_sample: int


@dataclass(frozen=True, slots=True, eq=False)
class SpeechFrame:
    """Exactly 80 ms of mono audio, numbered within its turn.

    ``samples`` is int16 or float32 (see ``sample_format``); ``words`` are the marks of the words
    whose audio starts inside this frame. ``last_in_pause`` is set on the faded frame that ends
    the audio when the session is paused.
    """

    turn_id: int
    index: int
    sample_offset: int
    sample_rate: int
    sample_format: SampleFormat
    samples: npt.NDArray[np.int16] | npt.NDArray[np.float32]
    words: tuple[WordMark, ...] = ()
    last_in_pause: bool = False

    @property
    def num_samples(self) -> int:
        return int(self.samples.shape[0])

    @property
    def start_s(self) -> float:
        return self.sample_offset / self.sample_rate

    def pcm16_bytes(self) -> bytes:
        """The samples as little-endian int16 bytes, whatever ``sample_format`` is."""
        if self.sample_format is SampleFormat.PCM16:
            return self.samples.astype("<i2", copy=False).tobytes()
        return float_to_pcm16(self.samples.astype(np.float32, copy=False)).astype("<i2").tobytes()


#: the frame's name before 0.2 (it collided with Pipecat's ``Frame`` in every adapter)
Frame = SpeechFrame


# -- events -----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Done:
    """All audio of the turn has been handed out (always sent, even for empty text)."""

    turn_id: int
    num_samples: int


@dataclass(frozen=True, slots=True)
class Paused:
    """Output stopped; ``spoken`` is the text whose audio started before the cut."""

    turn_id: int
    spoken: str
    num_samples: int
    words: tuple[WordMark, ...] = field(default=())


@dataclass(frozen=True, slots=True)
class Resumed:
    """Output continues with the paused remainder from the next frame."""

    turn_id: int


@dataclass(frozen=True, slots=True)
class Reset:
    """The conversation prefix was dropped; model and voice stay warm."""

    turn_id: int


@dataclass(frozen=True, slots=True)
class ErrorEvent:
    """Something failed inside the session; the session keeps working."""

    turn_id: int
    code: str
    message: str


Event = Done | Paused | Resumed | Reset | ErrorEvent
Output = SpeechFrame | Event
