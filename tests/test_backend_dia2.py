"""The dia2 backend on a small random-weight Dia2 built from dia2's own config classes.

Dia2 is installed from its git repository (it is not on the package index), so these tests skip
wherever it is not importable, which includes CI; there, one test checks the install hint instead.
"""

from __future__ import annotations

import importlib.util
import json
import re
import wave
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from extras import NO_TORCH

torch = pytest.importorskip("torch", reason=NO_TORCH)
HAVE_DIA2 = (
    importlib.util.find_spec("dia2") is not None and importlib.util.find_spec("transformers") is not None
)
requires_dia2 = pytest.mark.skipif(
    not HAVE_DIA2,
    reason="dia2 is not installed; it is not on the package index "
    "(pip install git+https://github.com/nari-labs/dia2), so this skips here and in CI",
)

from engine_helpers import frames_of, pump, words_of  # noqa: E402

from tts_service.backends import create_backend  # noqa: E402
from tts_service.backends.dia2.backend import Dia2Backend, Dia2VoiceState  # noqa: E402
from tts_service.backends.dia2.state import Dia2Options  # noqa: E402
from tts_service.engine.clock import FakeClock  # noqa: E402
from tts_service.engine.ports import FrameBackend, FrameStep  # noqa: E402
from tts_service.engine.session import EngineSession, SessionConfig  # noqa: E402
from tts_service.engine.types import Done  # noqa: E402
from tts_service.errors import ModelNotAvailableError  # noqa: E402

WORDS = [
    "hello",
    "there",
    "my",
    "friend",
    "this",
    "is",
    "a",
    "test",
    "of",
    "dia",
    "two",
    "and",
    "more",
    "words",
]
DELAYS = [3, 4, 5, 6]
AUDIO_VOCAB = 34  # 32 codes, then BOS and PAD


def _tokenizer() -> Any:
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    vocab = {"<pad>": 0, "<s>": 1, "[pad]": 2, "[new]": 3, "[zero]": 4, "[S1]": 5, "[S2]": 6, "<unk>": 7}
    for w in WORDS:
        vocab[w] = len(vocab)
    tok = Tokenizer(models.WordLevel(vocab, unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    return PreTrainedTokenizerFast(
        tokenizer_object=tok, bos_token="<s>", unk_token="<unk>", pad_token="<pad>"
    )


def build_runtime(max_context: int = 400, seed: int = 0, delays: list[int] = DELAYS) -> Any:
    """A Dia2 ``RuntimeContext`` with random weights: dia2's config classes, model and state machine."""
    from dia2.audio import MimiCodec
    from dia2.config import (
        AssetsConfig,
        DataConfig,
        DecoderConfig,
        DepformerConfig,
        DiaConfig,
        LinearHeadConfig,
        ModelConfig,
        RuntimeConfig,
    )
    from dia2.core.model import Dia2Model
    from dia2.core.precision import Precision
    from dia2.runtime.context import RuntimeContext
    from dia2.runtime.state_machine import StateMachine, TokenIds
    from transformers import MimiConfig, MimiModel

    tokenizer = _tokenizer()
    n_cb = len(DELAYS)
    data = DataConfig(
        channels=2 + n_cb, text_vocab_size=len(tokenizer), audio_vocab_size=AUDIO_VOCAB, action_vocab_size=2,
        text_pad_token_id=2, text_new_word_token_id=3, text_zero_token_id=4,
        audio_pad_token_id=AUDIO_VOCAB - 1, audio_bos_token_id=AUDIO_VOCAB - 2,
        action_pad_token_id=0, action_new_word_token_id=1, delay_pattern=delays,
        first_word_min_start=0, max_pad=6, second_stream_ahead=0,
    )  # fmt: skip
    model_cfg = ModelConfig(
        decoder=DecoderConfig(n_layer=2, n_embd=32, n_hidden=64, gqa_query_heads=4, kv_heads=2,
                              gqa_head_dim=8, dropout=0.0),
        depformer=DepformerConfig(n_layer=1, n_embd=32, n_hidden=64, gqa_query_heads=2, kv_heads=2,
                                  gqa_head_dim=8, apply_rope=True, text_embedding=True,
                                  mlp_activations=["silu", "linear"]),
        linear=LinearHeadConfig(mlp_activations=["silu", "linear"]),
        dropout=0.0, rope_min_timescale=1, rope_max_timescale=10000, normalization_layer_epsilon=1e-5,
    )  # fmt: skip
    config = DiaConfig(
        data=data,
        model=model_cfg,
        runtime=RuntimeConfig(weights_schedule=list(range(n_cb - 1)), max_context_steps=max_context),
        assets=AssetsConfig(tokenizer=None, mimi=None),
    )
    device = torch.device("cpu")
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        model = Dia2Model(config, Precision(torch.float32, torch.float32), device=device).eval()
        mimi_cfg = MimiConfig(
            hidden_size=32, num_filters=4, codebook_size=AUDIO_VOCAB - 2, codebook_dim=16,
            num_quantizers=n_cb, vector_quantization_hidden_dimension=16, num_hidden_layers=1,
            intermediate_size=64, num_attention_heads=2, num_key_value_heads=2, head_dim=16,
            upsample_groups=32,
        )  # fmt: skip
        mimi = MimiCodec(MimiModel(mimi_cfg).eval(), device)
    constants = TokenIds(
        card=data.text_vocab_size, new_word=3, pad=2, bos=1, zero=4, spk1=5, spk2=6,
        audio_pad=data.audio_pad_token_id, audio_bos=data.audio_bos_token_id,
    )  # fmt: skip
    machine = StateMachine(constants, second_stream_ahead=0, max_padding=6, initial_padding=0)
    return RuntimeContext(
        config=config, model=model, precision=Precision(torch.float32, torch.float32), tokenizer=tokenizer,
        mimi=mimi, device=device, machine=machine, transformer_step=model.transformer.forward_step,
        depformer_step=model.depformer.forward_step, constants=constants, audio_delays=delays,
        audio_delay_tensor=torch.tensor(delays), frame_rate=12.5,
    )  # fmt: skip


OPTIONS = Dia2Options(cfg_scale=2.0, text_temperature=0.6, audio_temperature=0.8)


@pytest.fixture(scope="module")
def backend() -> Dia2Backend:
    b = Dia2Backend.from_runtime(build_runtime(), options=OPTIONS, device="cpu")
    b.load()
    return b


def _speak(
    b: Dia2Backend, state: Dia2VoiceState, text: str, *, end: bool = True, limit: int = 400
) -> list[FrameStep]:
    b.feed_text(state, text)
    if end:
        b.end_text(state)
    steps: list[FrameStep] = []
    for _ in range(limit):
        step = b.step(state)
        steps.append(step)
        if step.finished or len(step.audio) == 0:
            break
    return steps


def _audio(steps: list[FrameStep]) -> np.ndarray:
    return np.concatenate([s.audio for s in steps])


@requires_dia2
def test_dia2_is_a_frame_backend_with_speaker_tags() -> None:
    """create_backend('dia2') builds a FrameBackend that passes [S1]/[S2] through."""
    b = create_backend("dia2", runtime=build_runtime(), device="cpu")
    assert isinstance(b, Dia2Backend) and isinstance(b, FrameBackend)
    assert b.capabilities.speaker_tags and b.capabilities.frame_native and not b.capabilities.own_normalizer


@requires_dia2
def test_frames_are_80_ms_and_words_come_from_the_transcript(backend: Dia2Backend) -> None:
    """Every frame is 1920 samples; each fed word is marked once, in order, at its consumption step."""
    state = backend.new_voice_state("default", seed=1)
    steps = _speak(backend, state, "[S1] hello there my friend")
    assert steps[-1].finished
    assert all(len(s.audio) == 1920 for s in steps)
    assert [w.word for s in steps for w in s.words] == ["hello", "there", "my", "friend"]


@requires_dia2
def test_streaming_equals_the_library_generation(backend: Dia2Backend) -> None:
    """Our step loop picks the same tokens as dia2's run_generation_loop for the same seed."""
    from dia2.audio.grid import undelay_frames
    from dia2.generation import GenerationConfig, SamplingConfig
    from dia2.runtime.generator import build_initial_state, run_generation_loop
    from dia2.runtime.script_parser import parse_script

    rt = backend.runtime
    text = "[S1] hello there my friend"
    state = backend.new_voice_state("default", seed=3)
    ours = _audio(_speak(backend, state, text))

    rt.machine.initial_padding = OPTIONS.initial_padding
    entries = parse_script([text], rt.tokenizer, rt.constants, rt.frame_rate)
    machine_state = rt.machine.new_state(entries)
    config = GenerationConfig(
        text=SamplingConfig(OPTIONS.text_temperature, OPTIONS.text_top_k),
        audio=SamplingConfig(OPTIONS.audio_temperature, OPTIONS.audio_top_k),
        cfg_scale=OPTIONS.cfg_scale, cfg_filter_k=OPTIONS.cfg_filter_k,
        initial_padding=OPTIONS.initial_padding,
    )  # fmt: skip
    torch.manual_seed(3)
    first, buf = run_generation_loop(
        rt, state=machine_state, generation=build_initial_state(rt), config=config
    )
    aligned = undelay_frames(buf[0], rt.audio_delays, rt.constants.audio_pad)[:, first:]
    with torch.inference_mode():
        reference = rt.mimi.model.decode(aligned.unsqueeze(0)).audio_values[0, 0].clamp(-1, 1).numpy()
    assert ours.shape == reference.shape
    np.testing.assert_allclose(ours, reference, rtol=1e-4, atol=1e-5)


@requires_dia2
def test_injects_continue_the_live_cache_and_reset_restores_it(backend: Dia2Backend) -> None:
    """feed_text appends to the running queue (no restart); reset_context restores the snapshot."""
    state = backend.new_voice_state("default", seed=2)
    start = state.kv_offset
    first = _audio(_speak(backend, state, "[S1] hello there", end=False))
    middle = state.kv_offset
    assert middle > start
    _speak(backend, state, "my friend")
    assert state.kv_offset > middle
    backend.reset_context(state)
    assert state.kv_offset == start
    assert np.array_equal(_audio(_speak(backend, state, "[S1] hello there", end=False)), first)


@requires_dia2
def test_seed_gives_identical_audio_and_batch_equals_single(backend: Dia2Backend) -> None:
    """Same seed, same samples; step_batch gives each call what step gives it (to float rounding)."""
    texts = ["[S1] hello there my friend", "[S2] this is a test", "[S1] more words"]

    def fresh() -> list[Dia2VoiceState]:
        states = [backend.new_voice_state("default", seed=10 + i) for i in range(len(texts))]
        for s, t in zip(states, texts, strict=True):
            backend.feed_text(s, t)
            backend.end_text(s)
        return states

    single = [[backend.step(s) for _ in range(12)] for s in fresh()]
    again = [[backend.step(s) for _ in range(12)] for s in fresh()]
    batch_states = fresh()
    batched = [backend.step_batch(batch_states) for _ in range(12)]
    for r in range(len(texts)):
        assert np.array_equal(_audio(single[r]), _audio(again[r]))
        for k in range(12):
            a, b = single[r][k], batched[k][r]
            assert a.words == b.words and a.finished == b.finished
            np.testing.assert_allclose(a.audio, b.audio, rtol=1e-4, atol=1e-5)


@requires_dia2
def test_the_engine_session_drives_dia2(backend: Dia2Backend) -> None:
    """start/inject/flush through EngineSession: exact frames, every word, then Done."""
    session = EngineSession(
        backend,
        SessionConfig(sample_rate=24000, lookahead_frames=2),
        clock=FakeClock(),
        voice_state=backend.new_voice_state("default", seed=4),
    )
    session.start("[S1] hello there, my friend. ")
    session.inject("this is a test.")
    session.flush()
    out = pump(session)
    assert isinstance(out[-1], Done)
    assert all(f.num_samples == 1920 for f in frames_of(out))
    assert [w.strip(",.") for w in words_of(out)] == [
        "hello",
        "there",
        "my",
        "friend",
        "this",
        "is",
        "a",
        "test",
    ]


@requires_dia2
def test_context_rollover_keeps_producing_frames() -> None:
    """Past the RoPE table the stream rolls over (snapshot + replay) and keeps making frames."""
    b = Dia2Backend.from_runtime(build_runtime(max_context=48), options=OPTIONS, device="cpu")
    state = b.new_voice_state("default", seed=5)
    frames = 0
    for _ in range(6):
        steps = _speak(b, state, "hello there my friend this is a test", end=False)
        frames += sum(len(s.audio) == 1920 for s in steps)
    assert state.stream.rollovers >= 2 and frames > 48


@requires_dia2
def test_voice_prefix_from_a_wav_with_its_words(backend: Dia2Backend, tmp_path: Path) -> None:
    """A WAV prompt with its word times beside it becomes the voice snapshot, restored on reset."""
    rate = 24000
    t = np.arange(rate) / rate
    pcm = (0.3 * np.sin(2 * np.pi * 200 * t) * 32767).astype(np.int16)
    wav = tmp_path / "speaker.wav"
    with wave.open(str(wav), "wb") as f:
        f.setnchannels(1)
        f.setsampwidth(2)
        f.setframerate(rate)
        f.writeframes(pcm.tobytes())
    wav.with_suffix(".json").write_text(json.dumps([{"text": "hello", "start": 0.1, "end": 0.4}]))
    state = backend.new_voice_state(str(wav), seed=6)
    prefix = state.kv_offset
    assert prefix > 0
    steps = _speak(backend, state, "[S1] my friend")
    assert all(len(s.audio) == 1920 for s in steps)
    backend.reset_context(state)
    assert state.kv_offset == prefix


@requires_dia2
def test_a_first_delay_of_zero_and_compiled_mlps_work() -> None:
    """Delay pattern [0, ...] (dia2's own loop reads an ungenerated token there) and compiled MLPs run."""
    options = Dia2Options(compile_backend="eager")
    b = Dia2Backend.from_runtime(build_runtime(delays=[0, 1, 2, 3]), options=options, device="cpu")
    state = b.new_voice_state("default", seed=7)
    steps = _speak(b, state, "[S1] hello there my friend")
    assert steps[-1].finished and all(len(s.audio) == 1920 for s in steps)
    assert np.isfinite(_audio(steps)).all()


@pytest.mark.skipif(HAVE_DIA2, reason="dia2 is installed here")
def test_without_dia2_creating_the_backend_says_how_to_install_it() -> None:
    """Where dia2 is not installed, create_backend('dia2') raises ModelNotAvailableError with the pip line."""
    with pytest.raises(
        ModelNotAvailableError, match=re.escape("pip install git+https://github.com/nari-labs/dia2")
    ):
        create_backend("dia2")
