"""The small sample arithmetic the engine and the backends share: fades, levels, int16 conversion.

Pure numpy on mono float32 arrays (samples in [-1, 1]) and int16 PCM bytes; no state, no I/O,
no clocks. It sits below both layers so that a backend never needs to import the engine to fade
a join, and the engine never needs a backend's copy of the same ramp; the agent's level gates
read their dBFS here too.
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

F32 = npt.NDArray[np.float32]


def raised_cosine(n: int) -> F32:
    """A fade-in ramp of ``n`` samples from 0 to 1 (half a Hann window); reverse it to fade out."""
    if n <= 0:
        return np.zeros(0, np.float32)
    return (0.5 - 0.5 * np.cos(np.pi * (np.arange(n, dtype=np.float64) + 0.5) / n)).astype(np.float32)


def fade_in(samples: F32, n: int) -> None:
    """Fade the first ``n`` samples in, in place (fewer when the array is shorter)."""
    n = min(n, len(samples))
    if n > 0:
        samples[:n] *= raised_cosine(n)


def fade_out(samples: F32, n: int) -> None:
    """Fade the last ``n`` samples out, in place (fewer when the array is shorter)."""
    n = min(n, len(samples))
    if n > 0:
        samples[len(samples) - n :] *= raised_cosine(n)[::-1]


def window_rms(samples: F32, window: int) -> F32:
    """The RMS level of each whole window of ``window`` samples (a trailing partial one is left out)."""
    n = len(samples) // window
    if n == 0:
        return np.zeros(0, np.float32)
    blocks = samples[: n * window].reshape(n, window).astype(np.float64)
    rms: F32 = np.sqrt((blocks * blocks).mean(axis=1)).astype(np.float32)
    return rms


def pcm16_dbfs(pcm: bytes) -> float:
    """The RMS level of little-endian int16 ``pcm`` in dBFS (-120 for nothing or digital silence)."""
    samples = np.frombuffer(pcm, dtype="<i2").astype(np.float64)
    if samples.size == 0:
        return -120.0
    rms = float(np.sqrt(np.mean(samples * samples))) / 32768.0
    return 20.0 * math.log10(max(rms, 1e-6))


def pcm16_peak(pcm: bytes) -> int:
    """The largest sample magnitude of little-endian int16 ``pcm`` (0 for nothing)."""
    samples = np.frombuffer(pcm, dtype="<i2")
    return int(np.abs(samples.astype(np.int32)).max()) if samples.size else 0


def pcm16_to_float(pcm: bytes | npt.NDArray[np.int16]) -> F32:
    """Little-endian int16 ``pcm`` (bytes or samples) as float32 in [-1, 1]: ``float_to_pcm16``'s
    inverse, so a round trip gives back every sample (but -32768, which comes back as -32767)."""
    samples = np.frombuffer(pcm, dtype="<i2") if isinstance(pcm, bytes) else np.asarray(pcm, np.int16)
    out: F32 = samples.astype(np.float32) / np.float32(32767.0)
    return out


def float_to_pcm16(samples: F32) -> npt.NDArray[np.int16]:
    """Clip to [-1, 1] and scale to int16 with rounding (no bias toward zero)."""
    scaled = np.clip(samples, -1.0, 1.0) * 32767.0
    out: npt.NDArray[np.int16] = np.rint(scaled).astype(np.int16)
    return out


__all__ = [
    "F32",
    "fade_in",
    "fade_out",
    "float_to_pcm16",
    "pcm16_dbfs",
    "pcm16_peak",
    "pcm16_to_float",
    "raised_cosine",
    "window_rms",
]
