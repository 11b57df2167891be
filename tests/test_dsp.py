"""The shared sample arithmetic: fades, window levels, int16 conversion."""

from __future__ import annotations

import numpy as np

from tts_service.dsp import fade_in, fade_out, float_to_pcm16, raised_cosine, window_rms


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
