"""G.711 mu-law as pure functions: golden codes from the standard's tables, and round trips."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from tts_service import g711
from tts_service.engine.types import frame_samples

# (linear int16, code): zero is "+0"/"-0", the ends of segment 0 and 1, full scale, and clipping.
ENCODE_GOLDEN = [
    (0, 0xFF),
    (-1, 0x7F),
    (3, 0xFF),
    (4, 0xFE),
    (11, 0xFE),
    (12, 0xFD),
    (123, 0xF0),
    (124, 0xEF),
    (-124, 0x6F),
    (-8, 0x7E),
    (32124, 0x80),
    (32767, 0x80),
    (-32124, 0x00),
    (-32768, 0x00),
]

# (code, linear): the middle of each code's interval (G.711 table 2, scaled by 4 to 16 bits).
DECODE_GOLDEN = [
    (0xFF, 0),
    (0x7F, 0),
    (0xFE, 8),
    (0xF0, 120),
    (0xEF, 132),
    (0xE0, 372),
    (0xDF, 396),
    (0x80, 32124),
    (0x00, -32124),
    (0x6F, -132),
]


def test_constants_describe_telephony_frames() -> None:
    """An 80 ms frame at 8 kHz is 640 one-byte codes; silence is 0xFF."""
    assert frame_samples(g711.SAMPLE_RATE) == 640
    assert g711.encode(np.zeros(640, np.int16)).tobytes() == bytes([g711.SILENCE]) * 640


@pytest.mark.parametrize(("linear", "code"), ENCODE_GOLDEN)
def test_encode_matches_the_g711_table(linear: int, code: int) -> None:
    """Each golden linear value encodes to the code the standard gives it."""
    assert int(g711.encode(np.array([linear], np.int16))[0]) == code


@pytest.mark.parametrize(("code", "linear"), DECODE_GOLDEN)
def test_decode_matches_the_g711_table(code: int, linear: int) -> None:
    """Each golden code decodes to the middle of its quantization interval."""
    assert int(g711.decode(bytes([code]))[0]) == linear


def test_every_code_but_minus_zero_survives_decode_then_encode() -> None:
    """encode(decode(c)) == c for all 256 codes except -0 (0x7F), which comes back as +0."""
    codes = np.arange(256, dtype=np.uint8)
    again = g711.encode(g711.decode(codes))
    assert np.array_equal(again[codes != 0x7F], codes[codes != 0x7F])
    assert int(again[0x7F]) == 0xFF


def test_encode_is_monotonic_in_the_signal() -> None:
    """Louder input never decodes quieter: decode(encode(x)) is non-decreasing over all int16."""
    linear = np.arange(-32768, 32768, dtype=np.int64).astype(np.int16)
    decoded = g711.decode(g711.encode(linear)).astype(np.int64)
    assert np.all(np.diff(decoded) >= 0)


def test_shapes_and_types_are_checked() -> None:
    """Arrays keep their shape; the wrong dtype raises TypeError."""
    block = np.zeros((2, 3), np.int16)
    assert g711.encode(block).shape == (2, 3)
    with pytest.raises(TypeError):
        g711.encode(np.zeros(4, np.float32))  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        g711.decode(np.zeros(4, np.int16))  # type: ignore[arg-type]


@given(hnp.arrays(np.int16, st.integers(0, 256)))
def test_round_trip_error_is_within_half_a_step(samples: np.ndarray) -> None:
    """decode(encode(x)) is within half a quantization step of x (steps grow with loudness)."""
    decoded = g711.decode(g711.encode(samples)).astype(np.int64)
    x = samples.astype(np.int64)
    clipped = np.clip(x, -g711.CLIP, g711.CLIP)
    bound = (np.abs(clipped) + g711.BIAS) / 32 + 1  # half a step of the segment holding x
    assert np.all(np.abs(decoded - clipped) <= bound)
    assert np.all(np.sign(decoded) * np.sign(x) >= 0)  # the sign survives (zero may be either)


def test_a_gain_table_scales_a_payload_by_its_gain_within_one_quantization_step() -> None:
    """``codes.translate(gain_table(-15))`` is the payload 15 dB down (to mu-law's resolution), and
    0 dB leaves every sample as it was ("-0" becomes "+0")."""
    rng = np.random.default_rng(7)
    pcm = (rng.standard_normal(8000) * 6000).clip(-32768, 32767).astype(np.int16)
    codes = g711.encode(pcm).tobytes()
    ducked = g711.decode(codes.translate(g711.gain_table(-15.0))).astype(np.float64)
    before = g711.decode(codes).astype(np.float64)
    level = 20 * np.log10(np.sqrt(np.mean(ducked**2)) / np.sqrt(np.mean(before**2)))
    assert level == pytest.approx(-15.0, abs=0.2)
    every = bytes(range(256))
    assert np.array_equal(g711.decode(every.translate(g711.gain_table(0.0))), g711.decode(every))
