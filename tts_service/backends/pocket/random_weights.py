"""Random-weight Pocket TTS models built from the library's own configs, for tests and benchmarks.

A model built here has exactly the architecture (and so the compute) of the packaged config it
starts from, with torch's default initialisation instead of trained weights, and a tokenizer made
on the spot with the vocabulary size the config asks for. Nothing is downloaded: every weight
path is cleared before the library builds the model. ``tiny_overrides`` shrinks a config to a
model that steps in a few milliseconds.

The audio such a model makes is noise; it exists to exercise real code paths (KV cache, Mimi
decoder state, voice prompts) and to time them. It must never be offered to callers as a voice.
"""

from __future__ import annotations

import copy
import hashlib
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import torch
from pocket_tts import TTSModel
from pocket_tts.utils.config import CONFIGS_DIR, load_config

#: characters every generated vocabulary holds, so any ASCII text tokenizes without unknowns
_CHARS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.,!?;:'\"-()$%&/"
#: common English words, each a piece of its own (space-separated)
_WORDS = (
    "the and you that was for are with his they this have from one had word but not what all were "
    "when your can said there use each which she how their will other about out many then them these "
    "some her would make like him into time has look two more write see number way could people than "
    "first water been call who its now find long down day did get come made may part hello there "
    "friend thanks help today sure right okay please sentence longer test"
)


def make_tokenizer(path: Path, vocab_size: int) -> Path:
    """Write a ``tokenizers`` Unigram tokenizer with exactly ``vocab_size`` pieces to ``path``.

    Pieces are the ASCII characters, common English words and, to reach the size, filler pieces;
    the layout (``<unk>`` first, Metaspace pre-tokenizer) is that of a converted SentencePiece
    model, which is what the library's ``JsonTokenizer`` reads.
    """
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers

    pieces: list[str] = ["<unk>", "▁"]
    pieces += [c for c in _CHARS if c not in pieces]
    pieces += ["▁" + c for c in _CHARS]
    pieces += ["▁" + w for w in _WORDS.split()]
    pieces = list(dict.fromkeys(pieces))[:vocab_size]
    filler = 0
    while len(pieces) < vocab_size:
        pieces.append(f"▁zz{filler}")
        filler += 1
    scores = [(p, -1.0 if len(p) > 2 else -5.0) for p in pieces]
    tok = Tokenizer(models.Unigram(scores, unk_id=0, byte_fallback=False))
    tok.pre_tokenizer = pre_tokenizers.Metaspace()
    tok.decoder = decoders.Metaspace()
    path.parent.mkdir(parents=True, exist_ok=True)
    tok.save(str(path))
    return path


def tiny_overrides() -> dict[str, Any]:
    """Config changes that shrink a model to a few hundred thousand weights (same frame geometry)."""
    return {
        "flow_lm": {
            "flow": {"dim": 32, "depth": 2},
            "transformer": {"d_model": 64, "hidden_scale": 2, "num_heads": 4, "num_layers": 2},
            "lookup_table": {"dim": 64, "n_bins": 160},
        },
        "mimi": {
            "inner_dim": 32,
            "outer_dim": 32,
            "seanet": {"dimension": 32, "n_filters": 4},
            "transformer": {
                "d_model": 32,
                "num_heads": 2,
                "num_layers": 1,
                "dim_feedforward": 64,
                "input_dimension": 32,
                "output_dimensions": [32],
            },
            "quantizer": {"dimension": 32, "output_dimension": 32},
        },
    }


def _merge(base: dict[str, Any], changes: Mapping[str, Any]) -> dict[str, Any]:
    out = copy.deepcopy(base)
    for key, value in changes.items():
        if isinstance(value, Mapping) and isinstance(out.get(key), dict):
            out[key] = _merge(out[key], value)
        else:
            out[key] = copy.deepcopy(value)
    return out


def build_random_model(
    workdir: Path,
    *,
    language: str = "english",
    overrides: Mapping[str, Any] | None = None,
    seed: int = 0,
    eos_threshold: float | None = None,
    temp: float | None = None,
) -> Any:
    """A ``pocket_tts.TTSModel`` with the packaged ``language`` architecture and random weights.

    ``workdir`` receives the generated tokenizer and config. The global torch RNG is left as it
    was; the weights depend only on ``seed``.
    """
    config = load_config(CONFIGS_DIR / f"{language}.yaml").model_dump()
    config = _merge(config, overrides or {})
    config["weights_path"] = None
    config["weights_path_without_voice_cloning"] = None
    config["flow_lm"]["weights_path"] = None
    config["mimi"]["weights_path"] = None
    n_bins = int(config["flow_lm"]["lookup_table"]["n_bins"])
    tokenizer = make_tokenizer(workdir / f"tokenizer_{n_bins}.json", n_bins)
    config["flow_lm"]["lookup_table"]["tokenizer"] = "tokenizers"
    config["flow_lm"]["lookup_table"]["tokenizer_path"] = str(tokenizer)
    digest = hashlib.sha1(json.dumps(config, sort_keys=True).encode()).hexdigest()[:12]
    config_path = workdir / f"random_{language}_{digest}.yaml"
    config_path.write_text(json.dumps(config), encoding="utf-8")
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        model = TTSModel.load_model(config=str(config_path), temp=temp, eos_threshold=eos_threshold)
        flow_lm = model.flow_lm
        # the loader leaves the voice projection at zero; random values make voices differ
        torch.nn.init.normal_(flow_lm.speaker_proj_weight, std=0.02)
    model.eval()
    return model
