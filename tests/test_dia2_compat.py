"""The contract of ``tts_service.backends.dia2.dia2_compat``: the Dia2 internals it uses still hold.

Each test names the internal it checks; a Dia2 release that changes one fails here, loudly,
before it changes the audio of the dia2 backend. Dia2 is installed from its git repository (it is
not on the package index), so these tests skip wherever it is not importable, which includes CI.
The model is a small random-weight one built from dia2's own config classes.
"""

from __future__ import annotations

import importlib.util
from typing import Any

import pytest
from extras import NO_TORCH

torch = pytest.importorskip("torch", reason=NO_TORCH)
HAVE_DIA2 = (
    importlib.util.find_spec("dia2") is not None and importlib.util.find_spec("transformers") is not None
)
if not HAVE_DIA2:
    pytest.skip(
        "dia2 is not installed; it is not on the package index "
        "(pip install git+https://github.com/nari-labs/dia2), so this skips here and in CI",
        allow_module_level=True,
    )

from dia2.config import (  # noqa: E402
    AssetsConfig,
    DataConfig,
    DecoderConfig,
    DepformerConfig,
    DiaConfig,
    LinearHeadConfig,
    ModelConfig,
    RuntimeConfig,
)
from dia2.core.layers import Attention  # noqa: E402
from dia2.core.model import Dia2Model  # noqa: E402
from dia2.core.precision import Precision  # noqa: E402

from tts_service.backends.dia2 import dia2_compat as compat  # noqa: E402

DELAYS = [3, 4, 5, 6]
AUDIO_VOCAB = 34  # 32 codes, then BOS and PAD


def _config() -> Any:
    """A tiny ``DiaConfig``: two decoder layers of four query heads over two key/value heads."""
    data = DataConfig(
        channels=2 + len(DELAYS), text_vocab_size=24, audio_vocab_size=AUDIO_VOCAB, action_vocab_size=2,
        text_pad_token_id=2, text_new_word_token_id=3, text_zero_token_id=4,
        audio_pad_token_id=AUDIO_VOCAB - 1, audio_bos_token_id=AUDIO_VOCAB - 2,
        action_pad_token_id=0, action_new_word_token_id=1, delay_pattern=DELAYS,
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
    return DiaConfig(
        data=data,
        model=model_cfg,
        runtime=RuntimeConfig(weights_schedule=list(range(len(DELAYS) - 1)), max_context_steps=64),
        assets=AssetsConfig(tokenizer=None, mimi=None),
    )


@pytest.fixture(scope="module")
def model() -> Any:
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(0)
        return Dia2Model(
            _config(), Precision(torch.float32, torch.float32), device=torch.device("cpu")
        ).eval()


def _attention(compute_dtype: Any) -> Any:
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(1)
        return Attention(_config(), 32, compute_dtype, device=torch.device("cpu")).eval()


def test_the_installed_dia2_is_the_tested_release_line() -> None:
    """The installed dia2 is the release line the compat module was written against."""
    assert compat.TESTED_DIA2.check(), compat.TESTED_DIA2.installed


def test_every_decoder_layer_attends_with_an_attention_that_projects_heads(model: Any) -> None:
    """Each decoder layer's ``attn`` is dia2's ``Attention``, with ``_project_heads`` and the fields read."""
    layers = list(model.transformer.layers)
    assert len(layers) == 2
    for layer in layers:
        attn = layer.attn
        assert isinstance(attn, Attention)
        assert callable(getattr(attn, "_project_heads", None))
        for name in ("q_proj", "k_proj", "v_proj", "o_proj", "q_norm", "k_norm", "rotary"):
            assert isinstance(getattr(attn, name), torch.nn.Module), name
        assert (attn.num_query_heads, attn.num_kv_heads, attn.head_dim) == (4, 2, 8)


@pytest.mark.parametrize("compute_dtype", [torch.float32, torch.bfloat16])
def test_project_heads_is_the_float32_projection_split_into_heads(compute_dtype: Any) -> None:
    """``_project_heads`` runs the linear in float32, views ``[B, T, heads, head_dim]``, casts to compute."""
    attn = _attention(compute_dtype)
    x = torch.randn(2, 1, 32, generator=torch.Generator().manual_seed(2)).to(compute_dtype)
    with torch.no_grad():
        for proj, heads in ((attn.q_proj, attn.num_query_heads), (attn.k_proj, attn.num_kv_heads)):
            out = compat.project_heads(attn, proj, x, heads)
            expected = proj(x.to(torch.float32)).view(2, 1, heads, attn.head_dim).to(compute_dtype)
            assert out.dtype == compute_dtype and out.shape == (2, 1, heads, attn.head_dim)
            torch.testing.assert_close(out, expected, rtol=0, atol=0)


def test_the_incremental_step_projects_q_k_v_through_project_heads(monkeypatch: pytest.MonkeyPatch) -> None:
    """``forward_incremental`` projects q, k, v with ``_project_heads`` and the heads the backend passes."""
    attn = _attention(torch.float32)
    own = attn._project_heads
    calls: list[tuple[Any, int]] = []

    def spy(proj: Any, x: Any, heads: int) -> Any:
        calls.append((proj, heads))
        return own(proj, x, heads)

    monkeypatch.setattr(attn, "_project_heads", spy)
    x = torch.randn(2, 1, 32, generator=torch.Generator().manual_seed(3))
    with torch.no_grad():
        attn.forward_incremental(x, torch.zeros(2, 1, dtype=torch.long), None)
    assert calls == [
        (attn.q_proj, attn.num_query_heads),
        (attn.k_proj, attn.num_kv_heads),
        (attn.v_proj, attn.num_kv_heads),
    ]
