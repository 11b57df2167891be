"""Real audio from hibari through the engine, judged by a recognizer and by join analysis."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import numpy.typing as npt
import pytest
from asr import DISTRACTORS
from engine_helpers import frames_of, pump

from tts_service.backends.hibari.backend import HibariBackend
from tts_service.engine.clock import FakeClock
from tts_service.engine.session import EngineSession, SessionConfig
from tts_service.engine.types import SampleFormat

SENTENCES = (
    "hello there, how are you doing today?",
    "i can help you with that, let me check the schedule for tomorrow.",
    "thank you for waiting, your table is ready now.",
)
Recognize = Callable[..., str | None]


def _tokens(text: str, seed: int) -> list[str]:
    """Split text the way an LLM streams it: pieces of one to five characters."""
    rng = np.random.default_rng(seed)
    out, i = [], 0
    while i < len(text):
        n = int(rng.integers(1, 6))
        out.append(text[i : i + n])
        i += n
    return out


def _stream(
    backend: HibariBackend, text: str, *, sample_rate: int = 24000, seed: int = 0
) -> tuple[npt.NDArray[np.float32], EngineSession]:
    """Inject token by token at ~30 tokens/s on a fake clock; return the turn's audio."""
    clock = FakeClock()
    s = EngineSession(
        backend,
        SessionConfig(sample_rate=sample_rate, sample_format=SampleFormat.FLOAT32, seed=seed),
        clock=clock,
    )
    frames = []
    s.start()
    for tok in _tokens(text, seed):
        s.inject(tok)
        frames += frames_of(pump(s))
        clock.advance(0.033)
    s.flush()
    frames += frames_of(pump(s))
    audio = np.concatenate([f.samples for f in frames]).astype(np.float32)
    return audio, s


def _grammar(sentence: str) -> list[str]:
    return [sentence, *DISTRACTORS, *(s for s in SENTENCES if s != sentence)]


@pytest.mark.parametrize("sentence", SENTENCES)
def test_streamed_tokens_are_recognised_like_whole_sentences(
    hibari_backend: HibariBackend, recognizer: Recognize, sentence: str
) -> None:
    """Token-by-token streaming is recognised as the sentence, as whole-sentence synthesis is."""
    whole = hibari_backend.synthesize(hibari_backend.new_voice_state("heart"), sentence, speed=1.0, seed=0)
    assert recognizer(whole.samples, 24000, _grammar(sentence)) == sentence.rstrip("?.").replace(",", "")
    streamed, _ = _stream(hibari_backend, sentence)
    assert recognizer(streamed, 24000, _grammar(sentence)) == sentence.rstrip("?.").replace(",", "")


@pytest.mark.parametrize("rate", [8000, 16000, 48000])
def test_streamed_audio_is_recognised_at_other_rates(
    hibari_backend: HibariBackend, recognizer: Recognize, rate: int
) -> None:
    """The resampled stream (telephony 8 kHz up to 48 kHz) still says the sentence."""
    sentence = SENTENCES[1]
    audio, _ = _stream(hibari_backend, sentence, sample_rate=rate)
    assert recognizer(audio, rate, _grammar(sentence)) == sentence.rstrip(".").replace(",", "")


def max_jump(x: npt.NDArray[np.float32]) -> float:
    return float(np.max(np.abs(np.diff(x.astype(np.float64))))) if len(x) > 1 else 0.0


def join_report(
    audio: npt.NDArray[np.float32], spans: list[tuple[int, int]], rate: int
) -> tuple[float, float]:
    """(largest jump at any join edge, largest jump inside continuous speech)."""
    w = rate // 200  # 5 ms either side of each edge
    at_joins = 0.0
    inside = 0.0
    for start, end in spans:
        at_joins = max(at_joins, max_jump(audio[max(0, start - w) : start + w]))
        at_joins = max(at_joins, max_jump(audio[max(0, end - w) : end + w]))
        inside = max(inside, max_jump(audio[start + 4 * w : end - 4 * w]))
    return at_joins, inside


def active_level_db(x: npt.NDArray[np.float32], rate: int) -> float:
    """Loudness of the speech in x: RMS over 20 ms windows within 30 dB of the loudest."""
    n = rate // 50
    blocks = x[: len(x) // n * n].reshape(-1, n).astype(np.float64)
    rms = np.sqrt((blocks**2).mean(axis=1))
    active = rms[rms > rms.max() * 10 ** (-30 / 20)]
    return float(20 * np.log10(np.sqrt(np.mean(active**2))))


PARAGRAPH = (
    "Sure, I can do that. Your booking is for two people on Friday at seven. "
    "Is there anything else I can help you with today? Have a lovely evening!"
)


def test_joins_have_no_clicks_and_units_no_loudness_steps(hibari_backend: HibariBackend) -> None:
    """No join jumps more than speech itself does, and unit levels stay within 2 dB."""
    audio, s = _stream(hibari_backend, PARAGRAPH)
    spans = s.timeline.unit_spans
    assert len(spans) >= 4
    at_joins, inside = join_report(audio, spans, 24000)
    assert at_joins < inside
    levels = [active_level_db(audio[a:b], 24000) for a, b in spans]
    assert max(levels) - min(levels) < 2.0


def test_the_click_detector_catches_a_hard_cut(hibari_backend: HibariBackend) -> None:
    """The join check fails on naive stitching cut mid-speech (so the test above can fail)."""
    unit = hibari_backend.synthesize(hibari_backend.new_voice_state("heart"), PARAGRAPH, speed=1.0, seed=0)
    x = unit.samples
    loud = int(np.argmax(np.abs(x)))
    spliced = np.concatenate([x[:loud], -x[loud:]])  # a polarity flip mid-speech: a click
    at_joins, inside = join_report(spliced, [(0, loud), (loud, len(spliced))], 24000)
    assert at_joins > inside
