"""The stateful resampler: exact lengths, linear positions, streaming equals one-shot."""

from __future__ import annotations

import numpy as np
import pytest

from tts_service.engine.resample import StreamResampler, resample_pcm16
from tts_service.engine.types import SUPPORTED_SAMPLE_RATES


@pytest.mark.parametrize("rate", SUPPORTED_SAMPLE_RATES)
def test_streamed_output_has_exact_length_and_matches_one_shot(rate: int) -> None:
    """Frame-by-frame conversion yields the same total length and nearly the same samples as one call."""
    x = (0.3 * np.sin(2 * np.pi * 440 * np.arange(24000 * 2 + 123) / 24000)).astype(np.float32)
    whole = StreamResampler(24000, rate).finish(x)
    r = StreamResampler(24000, rate)
    parts = [r.process(x[i : i + 1920]) for i in range(0, len(x), 1920)]
    streamed = np.concatenate([*parts, r.finish()])
    assert len(whole) == len(streamed) == r.to_output_position(len(x))
    assert np.max(np.abs(whole - streamed)) < 1e-3


def test_a_tone_keeps_its_pitch_and_position() -> None:
    """A 440 Hz burst resampled to 8 kHz peaks at 440 Hz and starts where the position map says."""
    x = np.zeros(24000, np.float32)
    x[12000:18000] = 0.5 * np.sin(2 * np.pi * 440 * np.arange(6000) / 24000)
    r = StreamResampler(24000, 8000)
    y = r.finish(x)
    spectrum = np.abs(np.fft.rfft(y))
    assert abs(np.argmax(spectrum) * 8000 / len(y) - 440) < 2
    onset = int(np.argmax(np.abs(y) > 0.05))
    assert abs(onset - r.to_output_position(12000)) <= 3


def test_passthrough_at_the_model_rate() -> None:
    """At the model's own rate the samples pass through unchanged."""
    x = np.arange(100, dtype=np.float32)
    r = StreamResampler(24000, 24000)
    assert r.passthrough and np.array_equal(r.process(x), x) and r.to_output_position(77) == 77


def test_int16_conversion_is_deterministic_and_keeps_a_tone() -> None:
    """``resample_pcm16`` gives the same samples on every call (soxr's own int16 output is dithered
    from a random seed), keeps digital silence silent and a tone's level."""
    t = np.arange(8000) / 8000
    tone = (np.sin(2 * np.pi * 440 * t) * 8000).astype(np.int16)
    once = resample_pcm16(tone, 8000, 16000)
    assert once.dtype == np.int16 and len(once) == 16000
    assert all(np.array_equal(once, resample_pcm16(tone.tobytes(), 8000, 16000)) for _ in range(5))
    assert not resample_pcm16(np.zeros(8000, np.int16), 8000, 16000).any()
    assert abs(int(np.abs(once[1000:-1000]).max()) - 8000) <= 80
    assert np.array_equal(resample_pcm16(tone, 8000, 8000), tone)
