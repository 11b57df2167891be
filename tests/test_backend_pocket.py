"""The pocket backend on small random-weight Pocket TTS models built from the library's own configs."""

from __future__ import annotations

import wave
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from extras import NO_TORCH

torch = pytest.importorskip("torch", reason=NO_TORCH)
pytest.importorskip("pocket_tts", reason=NO_TORCH)

from engine_helpers import events_of, frames_of, pump, pump_frames, words_of  # noqa: E402

from tts_service.backends import create_backend  # noqa: E402
from tts_service.backends.pocket import model as pm  # noqa: E402
from tts_service.backends.pocket.backend import FRAME_SAMPLES, PocketBackend, PocketVoiceState  # noqa: E402
from tts_service.backends.pocket.random_weights import build_random_model, tiny_overrides  # noqa: E402
from tts_service.engine.clock import FakeClock  # noqa: E402
from tts_service.engine.ports import FrameBackend, FrameStep  # noqa: E402
from tts_service.engine.session import EngineSession, SessionConfig  # noqa: E402
from tts_service.engine.types import Done, Paused  # noqa: E402
from tts_service.errors import ModelNotAvailableError, UnknownVoiceError  # noqa: E402

TEXT = "Hello there, my friend."
MORE = "This is the second sentence of the test."


def _write_wav(path: Path, freq: float, seconds: float = 1.0) -> Path:
    rate = 24000
    t = np.arange(int(rate * seconds)) / rate
    x = (0.3 * np.sin(2 * np.pi * freq * t) * (1 + 0.5 * np.sin(2 * np.pi * 3 * t))).astype(np.float32)
    with wave.open(str(path), "wb") as f:
        f.setnchannels(1)
        f.setsampwidth(2)
        f.setframerate(rate)
        f.writeframes((x * 32767).astype(np.int16).tobytes())
    return path


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("pocket")


@pytest.fixture(scope="module")
def voice(workdir: Path) -> str:
    return str(_write_wav(workdir / "speaker.wav", 220.0))


def _model(workdir: Path, eos_threshold: float = -100.0) -> object:
    # EOS threshold -100: every unit ends on the library's earliest EOS frame, so lengths are exact
    model = build_random_model(workdir, overrides=tiny_overrides(), eos_threshold=eos_threshold, seed=1)
    model.max_decoder_frames_per_call = 1  # the library decodes frame by frame, as we do
    return model


@pytest.fixture(scope="module")
def backend(workdir: Path) -> PocketBackend:
    b = PocketBackend.from_model(_model(workdir))
    b.load()
    return b


def _speak(b: PocketBackend, state: PocketVoiceState, text: str, *, end: bool = True) -> list[FrameStep]:
    b.feed_text(state, text)
    if end:
        b.end_text(state)
    steps: list[FrameStep] = []
    while True:
        step = b.step(state)
        steps.append(step)
        if step.finished or len(step.audio) == 0:
            return steps


def _audio(steps: list[FrameStep]) -> np.ndarray:
    return np.concatenate([s.audio for s in steps])


def test_the_backend_is_a_frame_backend_from_the_registry(workdir: Path) -> None:
    """create_backend('pocket') builds a FrameBackend with the capabilities the engine reads."""
    b = create_backend("pocket", model=_model(workdir), warmup=False)
    assert isinstance(b, PocketBackend) and isinstance(b, FrameBackend)
    caps = b.capabilities
    assert caps.frame_native and caps.incremental_text and caps.word_times
    assert not caps.own_normalizer and not caps.speaker_tags and caps.context_limit == 1024


def test_steps_are_exact_80_ms_frames(backend: PocketBackend, voice: str) -> None:
    """Every step with audio is one 80 ms frame at 24 kHz; an idle model returns empty steps."""
    state = backend.new_voice_state(voice, seed=1)
    assert len(backend.step(state).audio) == 0  # no text yet: nothing to say
    steps = _speak(backend, state, TEXT)
    assert steps[-1].finished
    assert all(len(s.audio) == FRAME_SAMPLES and s.audio.dtype == np.float32 for s in steps)
    assert np.isfinite(_audio(steps)).all()


def test_streaming_equals_the_library_generation(backend: PocketBackend, voice: str) -> None:
    """Step-by-step output is bit-identical to TTSModel.generate_audio for the same seed and weights."""
    model = backend.model
    state = backend.new_voice_state(voice, seed=5)
    ours = _audio(_speak(backend, state, TEXT))
    library_state = model.get_state_for_audio_prompt(Path(voice))
    torch.manual_seed(5)
    reference = model.generate_audio(library_state, TEXT).numpy()
    assert ours.shape == reference.shape
    assert np.array_equal(ours, reference)


def test_a_seed_gives_bit_identical_audio(backend: PocketBackend, voice: str) -> None:
    """Same seed and text: identical samples; another seed: different samples."""
    runs = [_audio(_speak(backend, backend.new_voice_state(voice, seed=s), TEXT)) for s in (7, 7, 8)]
    assert np.array_equal(runs[0], runs[1])
    assert not np.array_equal(runs[0], runs[2])


def test_kv_cache_grows_across_injects_and_reset_restores_the_voice(
    backend: PocketBackend, voice: str
) -> None:
    """Injected text continues the live KV cache; reset_context goes back to the voice snapshot."""
    state = backend.new_voice_state(voice, seed=2)
    voice_len = state.kv_offset
    first = _audio(_speak(backend, state, TEXT, end=False))
    after_first = state.kv_offset
    assert after_first > voice_len
    _speak(backend, state, MORE)
    assert state.kv_offset > after_first  # appended to the same cache, not restarted
    backend.reset_context(state)
    assert state.kv_offset == voice_len
    again = _audio(_speak(backend, state, TEXT, end=False))
    assert np.array_equal(first, again)  # after reset the same text gives the same samples


def test_discard_rolls_back_to_the_last_whole_unit(backend: PocketBackend, voice: str) -> None:
    """discard_text drops the unit being spoken and its cache entries, keeping earlier units."""
    state = backend.new_voice_state(voice, seed=2)
    _speak(backend, state, TEXT, end=False)
    kept = state.kv_offset
    backend.feed_text(state, MORE)
    backend.step(state)
    backend.step(state)
    assert state.kv_offset > kept
    backend.discard_text(state)
    assert state.kv_offset == kept
    assert len(backend.step(state).audio) == 0  # nothing left to say


def test_words_come_with_the_frame_they_start_in(backend: PocketBackend, voice: str) -> None:
    """Every source word is marked once, in order, with start <= end inside or after its frame."""
    state = backend.new_voice_state(voice, seed=3)
    steps = _speak(backend, state, f"{TEXT} {MORE}")
    marks = [w for s in steps for w in s.words]
    assert [w.word for w in marks] == f"{TEXT} {MORE}".split()
    assert all(0 <= w.start_sample <= w.end_sample and w.start_sample < FRAME_SAMPLES for w in marks)


def test_voice_state_saves_and_loads(backend: PocketBackend, voice: str, workdir: Path) -> None:
    """A voice saved as .safetensors loads back (here and in the library) and speaks identically."""
    path = workdir / "speaker.safetensors"
    backend.save_voice(voice, path)
    loaded = backend.new_voice_state(str(path), seed=4)
    original = backend.new_voice_state(voice, seed=4)
    assert loaded.kv_offset == original.kv_offset
    assert np.array_equal(_audio(_speak(backend, loaded, TEXT)), _audio(_speak(backend, original, TEXT)))
    library_state = backend.model.get_state_for_audio_prompt(path)
    cache = library_state["transformer.layers.0.self_attn"]["cache"]
    assert torch.equal(cache[:, 0], original.snapshot.layers[0])


def test_batched_step_equals_individual_steps(backend: PocketBackend, voice: str, workdir: Path) -> None:
    """step_batch over several calls gives each call what step gives it (to float rounding)."""
    other = str(_write_wav(workdir / "other.wav", 330.0, 0.6))
    setups = [(voice, 11, TEXT), (other, 12, MORE), (voice, 13, f"{MORE} {TEXT}")]

    def fresh() -> list[PocketVoiceState]:
        states = [backend.new_voice_state(v, seed=s) for v, s, _ in setups]
        for state, (_, _, text) in zip(states, setups, strict=True):
            backend.feed_text(state, text)
            backend.end_text(state)
        return states

    single = [[backend.step(s) for _ in range(20)] for s in fresh()]
    batch_states = fresh()
    batched = [backend.step_batch(batch_states) for _ in range(20)]
    for r in range(len(setups)):
        for k in range(20):
            a, b = single[r][k], batched[k][r]
            assert a.finished == b.finished and a.words == b.words and len(a.audio) == len(b.audio)
            np.testing.assert_allclose(a.audio, b.audio, rtol=1e-4, atol=1e-5)


def test_the_engine_session_drives_pocket_end_to_end(backend: PocketBackend, voice: str) -> None:
    """start/inject/flush give exact frames, every word and Done; pause stops within one frame."""
    session = EngineSession(
        backend,
        SessionConfig(sample_rate=24000, lookahead_frames=2),
        clock=FakeClock(),
        voice_state=backend.new_voice_state(voice, seed=9),
    )
    session.start("Hello there, my friend. ")
    session.inject("This is the second sentence")
    session.inject(" of the test.")
    session.flush()
    out = pump(session)
    assert isinstance(out[-1], Done)
    assert all(f.num_samples == FRAME_SAMPLES for f in frames_of(out))
    assert words_of(out) == [*TEXT.split(), *MORE.split()]

    state = backend.new_voice_state(voice, seed=9)
    session = EngineSession(
        backend, SessionConfig(sample_rate=8000, lookahead_frames=2), clock=FakeClock(), voice_state=state
    )
    session.start(f"{TEXT} {MORE} {TEXT}")
    session.flush()
    pump_frames(session, 3)
    stepped = state.frames
    session.pause()
    tail = pump(session)
    assert len(frames_of(tail)) <= 1 and isinstance(events_of(tail)[-1], Paused)
    assert pump(session) == [] and state.frames == stepped  # the model is not stepped while paused


def test_context_rollover_keeps_producing_frames(workdir: Path, voice: str) -> None:
    """With a small context the stream rolls over (voice + last unit replayed) and never fails."""
    b = PocketBackend.from_model(_model(workdir), context_limit=256, warmup=False)
    state = b.new_voice_state(voice, seed=6)
    for _ in range(8):
        steps = _speak(b, state, f"{MORE} {TEXT}", end=False)
        assert steps and all(len(s.audio) in (0, FRAME_SAMPLES) for s in steps)
        assert state.kv_offset <= 256
    assert state.rollovers >= 2
    assert len(_speak(b, state, TEXT)[-1].audio) == FRAME_SAMPLES


def test_mimi_window_slides_without_changing_the_audio(
    workdir: Path, voice: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Past its window the Mimi decoder cache slides (keys re-rotated): same audio to float rounding."""

    def long_run() -> np.ndarray:
        b = PocketBackend.from_model(_model(workdir, eos_threshold=100.0), warmup=False)  # never EOS
        state = b.new_voice_state(voice, seed=1)
        return _audio(_speak(b, state, f"{TEXT} {MORE}"))

    sliding = long_run()
    monkeypatch.setattr(pm, "MIMI_SLACK_STEPS", 16 * 400)
    unbounded = long_run()
    assert len(sliding) > FRAME_SAMPLES * 40  # several slides of a 32-frame slack
    np.testing.assert_allclose(sliding, unbounded, rtol=1e-3, atol=1e-4)


def test_bfloat16_and_compiled_paths_run(workdir: Path, voice: str) -> None:
    """The GPU options (bfloat16 backbone, compiled blocks) work on CPU and give exact frames."""
    b = PocketBackend.from_model(_model(workdir), dtype="bfloat16", compile=True, compile_backend="eager")
    b.load()
    state = b.new_voice_state(voice, seed=1)
    steps = _speak(b, state, TEXT)
    assert steps[-1].finished and all(len(s.audio) == FRAME_SAMPLES for s in steps)
    assert np.isfinite(_audio(steps)).all()


def test_unknown_and_missing_voices_raise_unknown_voice(backend: PocketBackend, workdir: Path) -> None:
    """A name that is no voice, or a prompt file that is not there, is refused with UnknownVoiceError."""
    with pytest.raises(UnknownVoiceError):
        backend.new_voice_state("no-such-voice")
    with pytest.raises(UnknownVoiceError):
        backend.new_voice_state(str(workdir / "missing.wav"))
    with pytest.raises(UnknownVoiceError, match="never downloads"):
        backend.new_voice_state("alba")  # a named voice whose state is not in the local cache


@pytest.fixture
def empty_hf_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    from huggingface_hub import constants

    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path / "hub"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    yield tmp_path


def test_missing_weights_raise_model_not_available_with_the_fix(empty_hf_cache: Path) -> None:
    """Without weights in the local cache, load() says exactly what to download, and downloads nothing."""
    b = PocketBackend(warmup=False)
    with pytest.raises(ModelNotAvailableError) as info:
        b.load()
    message = str(info.value)
    assert (
        "hf download kyutai/pocket-tts-without-voice-cloning languages/english/model.safetensors" in message
    )
    assert "tokenizer.json" in message and "never downloads" in message
    assert not any((empty_hf_cache / "hub").rglob("*.safetensors"))
