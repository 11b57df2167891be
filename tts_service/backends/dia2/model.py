"""Dia2 compute for the dia2 backend: one step (80 ms of text time) for one call or a batch of calls.

Dia2's own step (``TransformerDecoder.forward_step``) keeps one cache length for its whole batch,
which is the two classifier-free-guidance branches of one call. Here each call owns its
transformer cache (the library's ``KVCache``, batch 2) and position, and one forward pass advances
several calls: embeddings, projections, norms, MLPs, heads and the depformer run batched over
``2 * calls`` rows; attention runs per call through the library's own ``CacheSlot.write_and_view``.
For one call the operations are the library's, in its order.

Sampling mirrors ``dia2.runtime.sampler.sample_token`` but draws from a per-call generator, so a
seed fixes a call's audio whatever else runs (the library draws from the global RNG).

Mimi: transformers' ``MimiModel`` has no streaming decoder state, so ``decode_windows`` decodes a
sliding window of the most recent frames and keeps the newest frame's samples. Mimi's decoder is
causal, so that equals a full decode whenever the window covers the decoder's receptive field and
attention context; ``WINDOW_FRAMES`` trades that against compute. The window decode also absorbs
the library's decode pitfall: recent transformers return one value where ``MimiCodec.decode``
unpacks two.

This module must never download, never run on the event loop, and never touch the engine.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import torch
import torch.nn.functional as F

from tts_service.backends.dia2.dia2_compat import project_heads

Tensor = torch.Tensor
#: Mimi frames decoded together to produce the newest one (2 s of context)
WINDOW_FRAMES = 25


def sample_token(logits: Tensor, temp: float, top_k: int, generator: torch.Generator) -> Tensor:
    """``dia2.runtime.sampler.sample_token`` with an explicit generator (same math, same draws)."""
    logits32 = logits.to(torch.float32)
    if temp <= 0.0:
        return torch.argmax(logits32, dim=-1, keepdim=True)
    probs = torch.softmax(logits32 / max(temp, 1e-6), dim=-1)
    probs = torch.nan_to_num(probs, nan=0.0, posinf=0.0, neginf=0.0)
    probs = torch.clamp_min(probs, 0.0)
    flat = probs.reshape(-1, probs.shape[-1])
    norm = flat.sum(dim=-1, keepdim=True)
    zero_mask = norm <= 0
    flat = flat / norm.clamp_min(1e-12)
    filler = torch.zeros_like(flat)
    filler[..., 0] = 1.0
    flat = torch.where(zero_mask.expand_as(flat), filler, flat)
    vocab = flat.shape[-1]
    if 0 < top_k < vocab:
        topv, indices = torch.topk(flat, top_k, dim=-1)
        topv = topv / topv.sum(dim=-1, keepdim=True).clamp_min(1e-12)
        draws = torch.multinomial(topv, num_samples=1, generator=generator)
        picks = torch.gather(indices, dim=-1, index=draws)
    else:
        picks = torch.multinomial(flat, num_samples=1, generator=generator)
    return picks.reshape((*probs.shape[:-1], 1))


def _attention(attn: Any, x: Tensor, positions: Tensor, slots: Sequence[Any]) -> Tensor:
    """``Attention.forward_incremental`` for ``2 * len(slots)`` rows, two per call's cache slot."""
    b, t, _ = x.shape
    orig_dtype = x.dtype
    q = attn.q_norm(project_heads(attn, attn.q_proj, x, attn.num_query_heads))
    k = attn.k_norm(project_heads(attn, attn.k_proj, x, attn.num_kv_heads))
    v = project_heads(attn, attn.v_proj, x, attn.num_kv_heads)
    q = attn.rotary(q, positions).transpose(1, 2)
    k = attn.rotary(k, positions).transpose(1, 2)
    v = v.transpose(1, 2)
    rows = []
    for i, slot in enumerate(slots):
        part = slice(2 * i, 2 * i + 2)
        k_cache, v_cache, mask = slot.write_and_view(k[part], v[part])
        rows.append(
            F.scaled_dot_product_attention(
                q[part], k_cache, v_cache, scale=1.0, attn_mask=mask, enable_gqa=attn.num_gqa_groups > 1
            )
        )
    out = rows[0] if len(rows) == 1 else torch.cat(rows, dim=0)
    flat = out.transpose(1, 2).contiguous().reshape(b, t, attn.num_query_heads * attn.head_dim)
    result: Tensor = attn.o_proj(flat.to(torch.float32)).to(orig_dtype)
    return result


def transformer_step(
    model: Any,
    tokens: Tensor,
    positions: Tensor,
    caches: Sequence[Any],
    mlps: Sequence[Callable[[Tensor], Tensor]] | None = None,
) -> tuple[Tensor, Tensor, Tensor]:
    """``TransformerDecoder.forward_step`` for several calls (``tokens`` ``[2B, C, 1]``, caches of batch 2).

    Returns the normalized hidden state, the text (action) logits and the first codebook's logits.
    ``mlps`` replaces each layer's MLP (compiled versions of the same).
    """
    decoder = model.transformer
    hidden = decoder.text_embed(tokens[:, 0, :], tokens[:, 1, :])
    for idx in range(max(0, tokens.shape[1] - 2)):
        hidden.add_(decoder.audio_embeds[idx](tokens[:, idx + 2, :]))
    x = hidden.to(decoder.precision.compute)
    for i, layer in enumerate(decoder.layers):
        x = x + _attention(layer.attn, layer.pre_norm(x), positions, [c.get_slot(i) for c in caches])
        mlp = mlps[i] if mlps is not None else layer.mlp
        x = x + mlp(layer.post_norm(x))
    norm = decoder.norm(x)
    action = decoder.action_head(norm.to(torch.float32)).to(decoder.precision.logits)
    cb0 = decoder.cb0_head(norm.to(torch.float32)).to(decoder.precision.logits)
    return norm, action, cb0


def decode_windows(mimi_model: Any, windows: Sequence[Tensor]) -> list[Tensor]:
    """The newest frame's samples of each window of codes ``[codebooks, frames]`` (equal lengths batch)."""
    out: list[Tensor | None] = [None] * len(windows)
    by_len: dict[int, list[int]] = {}
    for i, w in enumerate(windows):
        by_len.setdefault(w.shape[-1], []).append(i)
    for idx in by_len.values():
        codes = torch.stack([windows[i] for i in idx])
        with torch.inference_mode():
            decoded = mimi_model.decode(codes)
        audio = decoded.audio_values if hasattr(decoded, "audio_values") else decoded[0]
        frame = audio.shape[-1] // codes.shape[-1]
        for row, i in enumerate(idx):
            out[i] = torch.clamp(audio[row, 0, -frame:], -1.0, 1.0)
    return [o for o in out if o is not None]
