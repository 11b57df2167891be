"""Phone audio between 8 kHz mu-law (the bot's phone pipeline) and a carrier's 16 kHz linear PCM.

    down = Decimator()               # 16 kHz int16 -> 8 kHz int16, exactly half the samples
    up = Upsampler()                 # 8 kHz int16 -> 16 kHz int16, exactly twice the samples

Both are stateful FIR filters (a 31-tap windowed-sinc low-pass at 3.8 kHz, the filter's history
carried from one chunk to the next), so a stream converted 20 ms at a time has no seams and
every chunk converts to an exact length, as fixed-size carrier frames need. Pure numpy: no I/O.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

TAPS = 31
#: the low-pass's cut-off, as a fraction of the 16 kHz rate (3.8 kHz: under 8 kHz's Nyquist)
CUTOFF = 3800 / 16000


def _lowpass() -> npt.NDArray[np.float64]:
    n = np.arange(TAPS) - (TAPS - 1) / 2
    taps: npt.NDArray[np.float64] = 2 * CUTOFF * np.sinc(2 * CUTOFF * n) * np.hamming(TAPS)
    return np.asarray(taps / taps.sum(), dtype=np.float64)


_LOWPASS = _lowpass()


def _clip(samples: npt.NDArray[np.float64]) -> npt.NDArray[np.int16]:
    return np.clip(np.round(samples), -32768, 32767).astype(np.int16)


class Decimator:
    """16 kHz to 8 kHz: low-pass, then every second sample."""

    def __init__(self) -> None:
        self._history = np.zeros(TAPS - 1)
        self._odd = False  # an odd-length chunk leaves the next one starting on the other phase

    def process(self, pcm16k: npt.NDArray[np.int16]) -> npt.NDArray[np.int16]:
        padded = np.concatenate([self._history, pcm16k.astype(np.float64)])
        filtered = np.convolve(padded, _LOWPASS, mode="valid")
        self._history = padded[len(padded) - (TAPS - 1) :]
        start = 1 if self._odd else 0
        self._odd = (self._odd + len(pcm16k)) % 2 == 1
        return _clip(filtered[start::2])


class Upsampler:
    """8 kHz to 16 kHz: zeros between the samples, then the low-pass (at twice the gain)."""

    def __init__(self) -> None:
        self._history = np.zeros(TAPS - 1)

    def process(self, pcm8k: npt.NDArray[np.int16]) -> npt.NDArray[np.int16]:
        stuffed = np.zeros(2 * len(pcm8k))
        stuffed[::2] = pcm8k
        padded = np.concatenate([self._history, stuffed])
        filtered = np.convolve(padded, 2 * _LOWPASS, mode="valid")
        self._history = padded[len(padded) - (TAPS - 1) :]
        return _clip(filtered)


__all__ = ["Decimator", "Upsampler"]
