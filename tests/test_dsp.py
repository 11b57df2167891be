"""The shared sample arithmetic: fades, window levels, int16 conversion."""

from __future__ import annotations

import numpy as np

from tts_service.dsp import fade_in, fade_out, float_to_pcm16, pcm16_peak, raised_cosine, window_rms


def test_raised_cosine_fades_are_symmetric_and_leave_the_middle_alone() -> None:
    """fade_in and fade_out apply the same ramp from each end; short arrays fade what they have."""
    x = np.ones(100, np.float32)
    fade_in(x, 10)
    fade_out(x, 10)
    ramp = raised_cosine(10)
    assert np.array_equal(x[:10], ramp) and np.array_equal(x[-10:], ramp[::-1])
    assert np.all(x[10:90] == 1)
    short = np.ones(4, np.float32)
    fade_in(short, 10)
    assert np.array_equal(short, raised_cosine(4))


def test_window_rms_and_pcm16_rounding() -> None:
    """RMS per whole window; int16 conversion clips and rounds."""
    x = np.concatenate([np.full(5, 0.5, np.float32), np.zeros(5, np.float32), np.ones(3, np.float32)])
    assert np.allclose(window_rms(x, 5), [0.5, 0.0])
    pcm = float_to_pcm16(np.array([-2.0, -1.0, 0.0, 0.5, 1.0, 3.0], np.float32))
    assert pcm.tolist() == [-32767, -32767, 0, 16384, 32767, 32767]


def test_the_peak_is_the_largest_magnitude_even_at_full_scale_negative() -> None:
    """-32768 has no int16 negation: the peak is taken wide, and nothing has a peak of 0."""
    assert pcm16_peak(b"") == 0
    assert pcm16_peak(np.zeros(160, "<i2").tobytes()) == 0
    assert pcm16_peak(np.array([3, -70, 12], "<i2").tobytes()) == 70
    assert pcm16_peak(np.array([100, -32768], "<i2").tobytes()) == 32768
