"""The hibari backend: golden audio, determinism, durations, word marks, speech span, errors, ASR."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
from asr import DISTRACTORS
from hibari import Hibari, dsp
from hibari.tts import ASSETS
from hibari.voices import cache_dir
from hypothesis import given
from hypothesis import strategies as st

from tts_service.backends import available_backends, create_backend
from tts_service.backends.hibari.backend import (
    UNIT_SAMPLES,
    HibariBackend,
    HibariVoiceState,
)
from tts_service.backends.hibari.hibari_compat import open_duration_session
from tts_service.backends.word_marks import place_words
from tts_service.engine.ports import UnitAudio, UnitBackend, VoiceState
from tts_service.errors import InvalidInputError, InvalidSpeedError, UnknownVoiceError

MARKS_TEXT = "Dr. Smith paid $3.50 at 10:30, e.g. for pi 3.14."
SR = 24000


@pytest.fixture(scope="module")
def hibari() -> Hibari:
    return Hibari()


@pytest.fixture
def state(hibari_backend: HibariBackend) -> HibariVoiceState:
    return hibari_backend.new_voice_state("heart")


def rms(x: np.ndarray) -> float:
    return float(np.sqrt(np.mean(np.square(x, dtype=np.float64)))) if len(x) else 0.0


def test_registry_builds_an_unloaded_hibari_unit_backend() -> None:
    """The registry knows hibari, builds it as a UnitBackend, and names the known backends on a typo."""
    assert "hibari" in available_backends()
    backend = create_backend("hibari", threads=1)
    assert isinstance(backend, UnitBackend) and isinstance(backend, HibariBackend)
    assert not backend.is_warm()
    with pytest.raises(InvalidInputError, match="hibari"):
        create_backend("nope")


def test_load_leaves_the_default_voice_and_g2p_warm(hibari_backend: HibariBackend) -> None:
    """After load() the default voice's model is loaded and its G2P (lexicons, OOV net) warmed."""
    assert hibari_backend.is_warm()
    assert hibari_backend.is_warm("heart")


@pytest.mark.parametrize("text", ["Hello there.", MARKS_TEXT, "Well, okay"])
def test_one_chunk_unit_is_bit_exact_with_hibari(
    hibari_backend: HibariBackend, state: HibariVoiceState, hibari: Hibari, text: str
) -> None:
    """A one-chunk unit is bit-exact with hibari's own synthesis for the same seed (golden)."""
    unit = hibari_backend.synthesize(state, text, speed=1.0, seed=1234)
    np.testing.assert_array_equal(unit.samples, hibari(text, seed=1234))
    assert unit.samples.dtype == np.float32


def test_multi_chunk_unit_keeps_hibari_audio_and_cuts_the_pads(
    hibari_backend: HibariBackend, state: HibariVoiceState, hibari: Hibari
) -> None:
    """Each chunk of a two-sentence unit is hibari's own audio; the pads between them are cut."""
    text = "Hello there. How are you?"
    unit = hibari_backend.synthesize(state, text, speed=1.0, seed=5)
    first, second = hibari.stream(text, seed=5)
    assert len(unit.samples) < len(first) + len(second) - 10 * UNIT_SAMPLES
    # the first chunk's lead and the second chunk's tail are untouched (fades sit only at the join)
    np.testing.assert_array_equal(unit.samples[: 20 * UNIT_SAMPLES], first[: 20 * UNIT_SAMPLES])
    np.testing.assert_array_equal(unit.samples[-20 * UNIT_SAMPLES :], second[-20 * UNIT_SAMPLES :])
    words = [w.word for w in unit.words]
    assert words == ["Hello", "there.", "How", "are", "you?"]
    gap = unit.words[2].start_sample - unit.words[1].end_sample
    assert 0 < gap < SR // 2


def test_same_seed_is_identical_and_different_seeds_differ(
    hibari_backend: HibariBackend, state: HibariVoiceState
) -> None:
    """The same seed gives identical samples; another seed changes them."""
    a = hibari_backend.synthesize(state, "Seeds make it repeatable.", speed=1.0, seed=7)
    b = hibari_backend.synthesize(state, "Seeds make it repeatable.", speed=1.0, seed=7)
    c = hibari_backend.synthesize(state, "Seeds make it repeatable.", speed=1.0, seed=8)
    np.testing.assert_array_equal(a.samples, b.samples)
    assert a.words == b.words
    assert not np.array_equal(a.samples, c.samples)


@pytest.mark.parametrize("speed", [0.5, 1.0, 1.3, 2.0])
def test_durations_sum_to_the_audio_length(hibari: Hibari, speed: float) -> None:
    """The exposed per-id durations, times 600 samples, add up to exactly the audio length."""
    session = open_duration_session(f"{ASSETS}/hibari.onnx", threads=1)
    ids = hibari.ids(hibari.phonemize(MARKS_TEXT)[0])
    out = session.run(None, {"ids": np.asarray([ids], np.int64), "speed": np.asarray([speed], np.float32)})
    durations = out[6]
    audio = dsp.synth(*(o[0] for o in out[:6]), np.random.default_rng(0))
    assert durations.shape == (len(ids),)
    assert int(durations.sum()) * UNIT_SAMPLES == len(audio)


def test_word_marks_follow_the_source_words(hibari_backend: HibariBackend, state: HibariVoiceState) -> None:
    """One mark per source word, in order and spelling, within the audio; "$3.50" outlasts "at"."""
    unit = hibari_backend.synthesize(state, MARKS_TEXT, speed=1.0, seed=0)
    assert [w.word for w in unit.words] == MARKS_TEXT.split()
    starts = [w.start_sample for w in unit.words]
    assert starts == sorted(starts)
    for w in unit.words:
        assert 0 <= w.start_sample <= w.end_sample <= len(unit.samples)
    marks = {w.word: w for w in unit.words}
    duration = {k: w.end_sample - w.start_sample for k, w in marks.items()}
    assert duration["$3.50"] > 3 * duration["at"] > 0
    assert unit.speech_start <= unit.words[0].start_sample
    assert unit.words[-1].end_sample <= unit.speech_end


def test_word_marks_scale_with_speed(hibari_backend: HibariBackend, state: HibariVoiceState) -> None:
    """At half speed the audio and the last word's end both roughly double."""
    fast = hibari_backend.synthesize(state, "Thank you for waiting.", speed=1.0, seed=0)
    slow = hibari_backend.synthesize(state, "Thank you for waiting.", speed=0.5, seed=0)
    ratio = slow.words[-1].end_sample / fast.words[-1].end_sample
    assert 1.6 < ratio < 2.4


def test_speech_span_trims_only_silence(hibari_backend: HibariBackend, state: HibariVoiceState) -> None:
    """speech_start/speech_end lie inside the audio and what lies outside them is near silence."""
    unit = hibari_backend.synthesize(state, "Your table is ready now.", speed=1.0, seed=3)
    n = len(unit.samples)
    assert 0 < unit.speech_start < unit.speech_end <= n
    speech = rms(unit.samples[unit.speech_start : unit.speech_end])
    assert rms(unit.samples[: unit.speech_start]) < 0.02 * speech
    assert rms(unit.samples[unit.speech_end :]) < 0.05 * speech


def test_unknown_voice_lists_the_available_ones(hibari_backend: HibariBackend) -> None:
    """A voice that is not here raises UnknownVoiceError naming the voices that are, and how to get more."""
    assert "heart" in hibari_backend.voices()
    for voice in ("nobody", *(v for v in ("emma", "fenrir") if v not in hibari_backend.voices())):
        with pytest.raises(UnknownVoiceError, match="available: heart") as info:
            hibari_backend.new_voice_state(voice)
        hint = info.value.operator_hint
        assert "hibari --voice" in hint and str(cache_dir()) in hint
        assert str(cache_dir()) not in str(info.value)  # the message may reach a remote client


@pytest.mark.parametrize("speed", [0.49, 2.01, 0.0, -1.0, float("nan"), float("inf")])
def test_speed_outside_the_range_is_refused(
    hibari_backend: HibariBackend, state: HibariVoiceState, speed: float
) -> None:
    """A speed outside capabilities.speed_range raises InvalidSpeedError."""
    with pytest.raises(InvalidSpeedError):
        hibari_backend.synthesize(state, "Hello.", speed=speed, seed=0)


@pytest.mark.parametrize("text", ["", "   ", "...", "?!", "—", "( )"])
def test_nothing_speakable_gives_empty_audio(
    hibari_backend: HibariBackend, state: HibariVoiceState, text: str
) -> None:
    """Empty or punctuation-only text gives an empty unit, not an error."""
    unit = hibari_backend.synthesize(state, text, speed=1.0, seed=0)
    assert isinstance(unit, UnitAudio)
    assert len(unit.samples) == 0 and unit.words == ()
    assert unit.speech_start == unit.speech_end == 0


def test_foreign_voice_state_is_refused(hibari_backend: HibariBackend) -> None:
    """A VoiceState that new_voice_state did not make is refused loudly."""
    with pytest.raises(InvalidInputError):
        hibari_backend.synthesize(VoiceState("heart"), "Hello.", speed=1.0, seed=0)


def test_reset_context_keeps_the_voice(hibari_backend: HibariBackend, state: HibariVoiceState) -> None:
    """reset_context is a no-op for hibari: the next unit is the same audio as before."""
    before = hibari_backend.synthesize(state, "Same again.", speed=1.0, seed=2)
    hibari_backend.reset_context(state)
    after = hibari_backend.synthesize(state, "Same again.", speed=1.0, seed=2)
    np.testing.assert_array_equal(before.samples, after.samples)
    assert state.voice == "heart"


def test_threads_sharing_the_backend_get_the_serial_audio(hibari_backend: HibariBackend) -> None:
    """Sessions on several threads sharing one backend get exactly the audio a serial run gives."""
    texts = ["Dr. Smith is here.", "It costs $4.20 today.", "Meet me at 9:15.", "Fine, thanks."] * 3
    states = [hibari_backend.new_voice_state("heart") for _ in texts]

    def run(i: int) -> UnitAudio:
        return hibari_backend.synthesize(states[i], texts[i], speed=1.0, seed=i)

    serial = [run(i) for i in range(len(texts))]
    with ThreadPoolExecutor(max_workers=4) as pool:
        parallel = list(pool.map(run, range(len(texts))))
    for a, b in zip(serial, parallel, strict=True):
        np.testing.assert_array_equal(a.samples, b.samples)
        assert a.words == b.words


def test_long_sentence_chunks_like_hibari(hibari_backend: HibariBackend, hibari: Hibari) -> None:
    """A sentence over hibari's phoneme limit splits into the same chunks hibari makes."""
    text = "We checked the kitchen, the garden, the garage and the attic; " * 8 + "and found nothing."
    chunks = hibari_backend.phonemize(text)
    assert len(chunks) > 1
    assert chunks == hibari.phonemize(text)


def test_backend_speech_is_recognised(
    hibari_backend: HibariBackend, state: HibariVoiceState, recognizer: Callable[..., str | None]
) -> None:
    """The backend's audio of a sentence is recognised as that sentence among distractors."""
    unit = hibari_backend.synthesize(state, "Your order will arrive on Friday afternoon.", speed=1.0, seed=11)
    said = unit.samples[unit.speech_start : unit.speech_end]
    expected = "your order will arrive on friday afternoon"
    assert recognizer(said, SR, [expected, *DISTRACTORS]) == expected


@given(
    counts=st.lists(st.integers(min_value=0, max_value=6), min_size=1, max_size=12),
    spoken=st.integers(min_value=1, max_value=30),
)
def test_place_words_always_gives_ordered_marks(counts: list[int], spoken: int) -> None:
    """Whatever the per-word counts, every word gets one ordered, in-bounds mark covering all speech."""
    spans = [(100 * i + 10, 100 * i + 80) for i in range(spoken)]
    words = [f"w{i}" for i in range(len(counts))]
    marks = place_words(words, counts, spans)
    assert [m.word for m in marks] == words
    for a, b in itertools.pairwise(marks):
        assert a.start_sample <= b.start_sample and a.end_sample <= b.start_sample
    assert all(m.start_sample <= m.end_sample for m in marks)
    assert min(m.start_sample for m in marks) == spans[0][0]
    assert max(m.end_sample for m in marks) == spans[-1][1]
