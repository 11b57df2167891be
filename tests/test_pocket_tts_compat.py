"""The contract of ``tts_service.backends.pocket.pocket_tts_compat``: its pocket-tts internals still hold.

Each test names the internal it checks; a pocket-tts release that changes one fails here, loudly,
before it changes the audio of the pocket backend or where its units end. The model is a tiny
random-weight one built from the library's own config (nothing is downloaded).
"""

from __future__ import annotations

from typing import Any

import pytest
from extras import NO_TORCH

torch = pytest.importorskip("torch", reason=NO_TORCH)
pytest.importorskip("pocket_tts", reason=NO_TORCH)

import torch.nn.functional as F  # noqa: E402
from pocket_tts import TTSModel  # noqa: E402
from pocket_tts.modules.transformer import StreamingTransformerLayer  # noqa: E402
from pocket_tts.utils import utils as pocket_utils  # noqa: E402

from tts_service.backends.pocket import pocket_tts_compat as compat  # noqa: E402
from tts_service.backends.pocket.random_weights import build_random_model, tiny_overrides  # noqa: E402


@pytest.fixture(scope="module")
def model(tmp_path_factory: pytest.TempPathFactory) -> Any:
    return build_random_model(tmp_path_factory.mktemp("pocket-compat"), overrides=tiny_overrides(), seed=1)


def _layers(model: Any) -> list[Any]:
    """Every transformer layer the backend steps: FlowLM's and Mimi's decoder's."""
    return [*model.flow_lm.transformer.layers, *model.mimi.decoder_transformer.transformer.layers]


def test_the_installed_pocket_tts_is_the_tested_release_line() -> None:
    """pyproject pins the release line the compat module was written against."""
    assert compat.TESTED_POCKET_TTS.check(), compat.TESTED_POCKET_TTS.installed


def test_every_layer_has_its_feed_forward_block(model: Any) -> None:
    """Each FlowLM and Mimi layer is a ``StreamingTransformerLayer`` whose ``_ff_block`` is the block."""
    layers = _layers(model)
    assert len(layers) >= 2
    for layer in layers:
        assert isinstance(layer, StreamingTransformerLayer)
        block = compat.feed_forward_block(layer)
        assert callable(block)
        assert getattr(block, "__self__", None) is layer
        assert getattr(block, "__func__", None) is StreamingTransformerLayer._ff_block


def test_the_feed_forward_block_is_the_residual_mlp_after_norm2(model: Any) -> None:
    """``_ff_block(x)`` is ``x + layer_scale_2(linear2(gelu_tanh(linear1(norm2(x)))))``, exactly."""
    generator = torch.Generator().manual_seed(0)
    with torch.no_grad():
        for layer in _layers(model):
            x = torch.randn(3, 2, layer.norm2.normalized_shape[0], generator=generator)
            expected = x + layer.layer_scale_2(
                layer.linear2(F.gelu(layer.linear1(layer.norm2(x)), approximate="tanh"))
            )
            torch.testing.assert_close(compat.feed_forward_block(layer)(x), expected, rtol=0, atol=0)


def test_a_layer_runs_its_feed_forward_block_last(model: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """A layer's forward is its attention residual, then ``_ff_block``, whose output it returns."""
    layer = model.flow_lm.transformer.layers[0]
    seen: list[Any] = []
    own = compat.feed_forward_block(layer)

    def spy(x: Any) -> Any:
        seen.append(x)
        out = own(x)
        seen.append(out)
        return out

    monkeypatch.setattr(layer, "_ff_block", spy)
    x = torch.randn(1, 1, layer.norm2.normalized_shape[0], generator=torch.Generator().manual_seed(1))
    with torch.no_grad():
        result = layer(x, None, attn_mask=None)
    assert len(seen) == 2 and result is seen[1]


def test_eos_is_ignored_for_an_int_number_of_first_frames(model: Any) -> None:
    """``TTSModel._MIN_FRAMES_BEFORE_EOS`` exists, is an int, and is what the backend reads."""
    value = TTSModel._MIN_FRAMES_BEFORE_EOS
    assert type(value) is int and value >= 0
    assert compat.min_frames_before_eos(model) == value == compat.DEFAULT_MIN_FRAMES_BEFORE_EOS


def test_the_predefined_voices_are_a_dict_of_names_to_hf_references() -> None:
    """``_ORIGINS_OF_PREDEFINED_VOICES`` maps each packaged voice name to an ``hf://`` reference."""
    origins = pocket_utils._ORIGINS_OF_PREDEFINED_VOICES
    assert isinstance(origins, dict) and origins
    assert all(isinstance(k, str) and str(v).startswith("hf://") for k, v in origins.items())
    names = compat.predefined_voice_names()
    assert names == tuple(origins)
    assert "alba" in names
    assert str(pocket_utils.get_predefined_voice(language="english", name="alba")).startswith("hf://")


@pytest.mark.parametrize("tokens", [0, 1, 7, 50, 123])
def test_the_mirrored_length_cap_equals_the_librarys_own(model: Any, tokens: int) -> None:
    """``max_gen_frames`` equals ``TTSModel._estimate_max_gen_len`` for the model's frame rate."""
    frame_rate = float(model.config.mimi.frame_rate)
    assert compat.max_gen_frames(tokens, frame_rate) == model._estimate_max_gen_len(tokens)


def test_the_mirrored_length_cap_uses_the_librarys_constants() -> None:
    """The speaking-rate estimate and padding are ``TTSModel``'s own private constants."""
    assert compat.TOKENS_PER_SECOND_ESTIMATE == TTSModel._TOKENS_PER_SECOND_ESTIMATE
    assert compat.GEN_SECONDS_PADDING == TTSModel._GEN_SECONDS_PADDING
