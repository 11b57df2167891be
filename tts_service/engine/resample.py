"""Sample-rate conversion from the model's rate to the session's output rate (soxr, HQ).

Stateful, so audio produced piecewise (one 80 ms frame per model step) converts without seams;
a unit that starts and ends in faded silence can be converted whole with ``finish``.
Positions map linearly: soxr compensates its filter delay, so input sample ``n`` lands at
output sample ``round(n * out_rate / in_rate)``.

Every conversion runs in float32 and is rounded to int16 by ``tts_service.dsp``, never by soxr:
soxr's own int16 output is dithered from a random seed, so the same input came out different on
every call (by one or two steps, enough to change what a recognizer hears in a clip near its
edge). ``resample_pcm16`` is the int16 conversion for everything that needs one (the agent's
recognizers, the benchmarks' callers); ``StreamResampler`` the stateful float one.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import soxr

from tts_service.dsp import float_to_pcm16, pcm16_to_float

F32 = npt.NDArray[np.float32]


def resample_pcm16(pcm: bytes | npt.NDArray[np.int16], in_rate: int, out_rate: int) -> npt.NDArray[np.int16]:
    """Int16 ``pcm`` (bytes or samples) at ``in_rate`` as int16 samples at ``out_rate``, whole and
    deterministic: the same input always gives the same output (see the module docstring)."""
    samples = pcm16_to_float(pcm)
    if in_rate != out_rate:
        samples = np.asarray(soxr.resample(samples, in_rate, out_rate, quality="HQ"), np.float32)
    return float_to_pcm16(samples)


class StreamResampler:
    """Converts a float32 mono stream from ``in_rate`` to ``out_rate``; a no-op when they match."""

    def __init__(self, in_rate: int, out_rate: int) -> None:
        self.in_rate = in_rate
        self.out_rate = out_rate
        self._stream: soxr.ResampleStream | None = None
        self._in_total = 0
        self._out_total = 0

    @property
    def passthrough(self) -> bool:
        return self.in_rate == self.out_rate

    def to_output_position(self, in_samples: int) -> int:
        """The output sample index of input sample ``in_samples`` (relative positions, e.g. marks)."""
        if self.passthrough:
            return in_samples
        return (in_samples * self.out_rate + self.in_rate // 2) // self.in_rate

    def process(self, samples: F32) -> F32:
        """Feed samples; returns the output available so far (soxr holds back its filter tail)."""
        if self.passthrough:
            return samples
        if self._stream is None:
            self._stream = soxr.ResampleStream(self.in_rate, self.out_rate, 1, dtype="float32", quality="HQ")
        self._in_total += len(samples)
        out = self._stream.resample_chunk(np.ascontiguousarray(samples, dtype=np.float32), last=False)
        self._out_total += len(out)
        return np.asarray(out, dtype=np.float32)

    def finish(self, samples: F32 | None = None) -> F32:
        """Feed the last samples and drain everything; the next call starts a fresh stream.

        The output length is exactly ``to_output_position(total input)``, so positions stay exact.
        """
        if samples is None:
            samples = np.zeros(0, np.float32)
        if self.passthrough:
            return samples
        if self._stream is None:
            self._stream = soxr.ResampleStream(self.in_rate, self.out_rate, 1, dtype="float32", quality="HQ")
        self._in_total += len(samples)
        out = np.asarray(
            self._stream.resample_chunk(np.ascontiguousarray(samples, dtype=np.float32), last=True),
            dtype=np.float32,
        )
        want = self.to_output_position(self._in_total) - self._out_total
        if len(out) < want:  # soxr may round the total down by a sample; keep positions exact
            out = np.concatenate([out, np.zeros(want - len(out), np.float32)])
        elif len(out) > want:
            out = out[:want]
        self.reset()
        return out

    def reset(self) -> None:
        """Forget the stream (after a discard): the next input starts from silence."""
        self._stream = None
        self._in_total = 0
        self._out_total = 0
