"""G.711 mu-law: 16-bit linear PCM to 8-bit codes and back, as numpy table look-ups.

The encoder is ITU-T G.711's mu-law segment coder on the 16-bit scale (the classic ``BIAS = 0x84``
form): the magnitude is clipped to ``CLIP``, biased, split into a 3-bit segment (exponent) and a
4-bit step within it, and the code is the bitwise inverse of ``sign | segment | step``. Negative
samples are quantized by magnitude, as the G.711 tables are sign and magnitude, so
``encode(0) == 0xFF`` ("+0") and ``encode(-1) == 0x7F`` ("-0"); coders that shift to 14 bits with
an arithmetic shift (``audioop``) round small negatives one step away from zero instead.

Pure functions over arrays; this module must never do I/O or hold state besides its two tables.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

#: the telephony rate mu-law is used at (any rate works: the coder is per sample)
SAMPLE_RATE = 8000
#: added to the magnitude so every segment starts at a power of two
BIAS = 0x84
#: largest magnitude the coder represents; louder samples saturate
CLIP = 32635
#: the code of silence ("+0")
SILENCE = 0xFF


def _encode_table() -> npt.NDArray[np.uint8]:
    """The code of every int16 value, indexed by the value's uint16 bit pattern."""
    linear = np.arange(65536, dtype=np.int64).astype(np.uint16).view(np.int16).astype(np.int64)
    sign_mask = np.where(linear < 0, 0x7F, 0xFF)
    biased = np.minimum(np.abs(linear), CLIP) + BIAS  # 132 .. 32767
    segment = np.frexp(biased.astype(np.float64))[1] - 8  # 0 for 128..255, 7 for 16384..32767
    step = (biased >> (segment + 3)) & 0x0F
    codes: npt.NDArray[np.uint8] = (((segment << 4) | step) ^ sign_mask).astype(np.uint8)
    return codes


def _decode_table() -> npt.NDArray[np.int16]:
    """The linear value of every code: the middle of its quantization interval."""
    inverted = ~np.arange(256, dtype=np.int64) & 0xFF
    segment = (inverted >> 4) & 0x07
    magnitude = (((inverted & 0x0F) << 3) + BIAS) << segment
    linear = np.where(inverted & 0x80, BIAS - magnitude, magnitude - BIAS)
    return linear.astype(np.int16)


_ENCODE = _encode_table()
_DECODE = _decode_table()


def encode(samples: npt.NDArray[np.int16]) -> npt.NDArray[np.uint8]:
    """Mu-law codes of int16 ``samples`` (any shape), one byte per sample."""
    pcm = np.asarray(samples)
    if pcm.dtype != np.int16:
        raise TypeError(f"mu-law encodes int16 samples, not {pcm.dtype}")
    out: npt.NDArray[np.uint8] = _ENCODE[pcm.view(np.uint16)]
    return out


def decode(codes: npt.NDArray[np.uint8] | bytes) -> npt.NDArray[np.int16]:
    """Int16 samples of mu-law ``codes`` (an array of uint8, or bytes)."""
    arr = np.frombuffer(codes, dtype=np.uint8) if isinstance(codes, bytes | bytearray) else np.asarray(codes)
    if arr.dtype != np.uint8:
        raise TypeError(f"mu-law decodes uint8 codes, not {arr.dtype}")
    out: npt.NDArray[np.int16] = _DECODE[arr]
    return out


def gain_table(gain_db: float) -> bytes:
    """A 256-byte table for ``bytes.translate`` that scales mu-law codes by ``gain_db`` (decoded,
    scaled, rounded, encoded again): a whole payload changes level in one C call."""
    scaled = np.round(_DECODE.astype(np.float64) * 10.0 ** (gain_db / 20.0))
    return bytes(encode(np.clip(scaled, -32768, 32767).astype(np.int16)))


__all__ = ["BIAS", "CLIP", "SAMPLE_RATE", "SILENCE", "decode", "encode", "gain_table"]
