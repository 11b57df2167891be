"""Pocket TTS compute, one 80 ms frame at a time, for one stream or a batch of independent streams.

The library keeps its streaming state as one dict per model whose attention caches must share a
single write offset across the batch. A call has its own offset (voice prompt length, turns
spoken), so here every stream owns its caches (``KVCache``: one tensor per layer and a Python
int offset, which also avoids a device sync per step) and one forward pass advances many streams:
projections, feed-forward blocks, the flow head and the Mimi convolutions run batched; only the
attention itself runs per stream, over that stream's own keys. With one stream the operations
are the library's own, in the same order, so step-by-step output equals the library's generation
bit for bit (``tests/test_backend_pocket.py`` checks it). Batched rows equal single rows to float
rounding only: the BLAS kernels sum in a different order for a different number of rows.

FlowLM caches are pre-allocated to the context limit and never grow (the backend rolls over
before they fill). Mimi's decoder transformer attends to a window of ``context`` steps, so its
cache is a sliding window: when full, the last ``context - 1`` keys move to the front and are
re-rotated (RoPE is relative, so rotating every kept key back by the shift keeps every
query-key angle), and an hour-long stream runs in constant memory.

This module must never run on the event loop, download anything, or touch the engine.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import torch
import torch.nn.functional as F
from pocket_tts.models.flow_lm import drifting_decode, lsd_decode, ot_decode, pointwise_decode
from pocket_tts.modules.attention import StreamingMultiheadAttention
from pocket_tts.modules.stateful_module import StatefulModule

from tts_service.backends.pocket.pocket_tts_compat import feed_forward_block

Tensor = torch.Tensor
ModelState = dict[str, dict[str, Tensor]]
#: Mimi decoder steps kept beyond its attention window before the window slides
MIMI_SLACK_STEPS = 16 * 32

_DECODERS: dict[str, Callable[..., Tensor]] = {
    "lsd": lsd_decode,
    "flow_matching": ot_decode,
    "drifting": drifting_decode,
    "pointwise": pointwise_decode,
}


def attention_modules(module: torch.nn.Module) -> list[Any]:
    """The streaming attention modules of ``module``, in layer order."""
    return [m for m in module.modules() if isinstance(m, StreamingMultiheadAttention)]


@dataclass(slots=True, eq=False)
class KVCache:
    """One stream's keys and values for each attention layer of one transformer.

    ``layers[i]`` is ``[2, capacity, kv_heads, head_dim]``; positions ``[0, offset)`` are valid.
    """

    layers: list[Tensor]
    offset: int = 0
    #: attention window in steps (Mimi); None for the FlowLM, whose backend rolls over instead
    context: int | None = None
    max_period: float = 10_000.0

    @classmethod
    def allocate(
        cls,
        attns: Sequence[Any],
        capacity: int,
        *,
        device: torch.device,
        dtype: torch.dtype,
        context: int | None = None,
    ) -> KVCache:
        layers = [
            torch.zeros((2, capacity, a.num_kv_heads, a.dim_per_head), device=device, dtype=dtype)
            for a in attns
        ]
        period = float(attns[0].rope.max_period) if attns else 10_000.0
        return cls(layers, 0, context, period)

    @property
    def capacity(self) -> int:
        return self.layers[0].shape[1] if self.layers else 0

    def load(self, prefix: Sequence[Tensor], length: int) -> None:
        """Make the first ``length`` positions those of ``prefix`` (a voice snapshot)."""
        if length > self.capacity:
            raise ValueError(f"a prefix of {length} steps does not fit a cache of {self.capacity}")
        if length == 0:
            self.offset = 0
            return
        for dst, src in zip(self.layers, prefix, strict=True):
            dst[:, :length].copy_(src[:, :length])
        self.offset = length

    def make_room(self, steps: int) -> None:
        """Slide the window (sliding caches only) so ``steps`` more positions fit."""
        if self.offset + steps <= self.capacity:
            return
        if self.context is None:
            raise ValueError(f"KV cache full: {self.offset} + {steps} > {self.capacity}")
        keep = min(self.context - 1, self.offset)
        shift = self.offset - keep
        if keep + steps > self.capacity:
            raise ValueError(f"{steps} steps do not fit a window cache of {self.capacity}")
        for kv in self.layers:
            kept = kv[:, shift : self.offset].clone()
            keys = kept[0]
            flat = keys.reshape(1, 1, keys.shape[0] * keys.shape[1], keys.shape[2])
            kept[0] = _rotate(flat, -shift, self.max_period).view_as(keys)
            kv[:, :keep] = kept
        self.offset = keep


def _rotate(x: Tensor, angle_steps: int, max_period: float) -> Tensor:
    """Rotate ``[1, 1, N, D]`` by ``angle_steps`` RoPE positions (the library's ``apply_rope`` math)."""
    from pocket_tts.modules.rope import apply_rope

    _, rotated = apply_rope(x, x, offset=angle_steps, max_period=max_period)
    return torch.as_tensor(rotated)


def _attention_mask(
    offset: int, steps: int, length: int, context: int | None, device: torch.device
) -> Tensor:
    """The library's streaming mask for one stream: causal, within ``context``."""
    pos_q = offset + torch.arange(steps, device=device, dtype=torch.long).view(1, -1)
    pos_k = torch.arange(length, device=device, dtype=torch.long).view(1, -1)
    delta = pos_q[:, :, None] - pos_k[:, None, :]
    mask = (pos_k[:, None, :] >= 0) & (delta >= 0)
    if context is not None:
        mask = mask & (delta < context)
    return mask[:, None]


def _attend(attn: Any, x: Tensor, caches: Sequence[KVCache], layer: int) -> Tensor:
    """``StreamingMultiheadAttention.forward`` for a batch whose rows each own a cache."""
    projected = attn.in_proj(x)
    b, t, _ = projected.shape
    d = attn.dim_per_head
    q = projected[..., : attn.attn_dim].view(b, t, attn.num_heads, d)
    kv = projected[..., attn.attn_dim :].view(b, t, 2, attn.num_kv_heads, d)
    k, v = torch.unbind(kv, dim=2)
    rows = []
    for r, cache in enumerate(caches):
        offset = cache.offset
        qr, kr = attn.rope(q[r : r + 1], k[r : r + 1], offset=offset)
        qr = qr.transpose(1, 2)
        store = cache.layers[layer]
        store[0, offset : offset + t] = kr[0]
        store[1, offset : offset + t] = v[r]
        valid = store[:, : offset + t]
        k_attn = valid[0].unsqueeze(0).permute(0, 2, 1, 3)
        v_attn = valid[1].unsqueeze(0).permute(0, 2, 1, 3)
        if attn.num_kv_heads != attn.num_heads:
            k_attn = k_attn.repeat_interleave(attn.num_heads // attn.num_kv_heads, dim=1)
            v_attn = v_attn.repeat_interleave(attn.num_heads // attn.num_kv_heads, dim=1)
        mask = _attention_mask(offset, t, offset + t, attn.context, x.device)
        out = F.scaled_dot_product_attention(qr, k_attn, v_attn, mask, dropout_p=0.0)
        rows.append(out.transpose(1, 2).reshape(1, t, attn.num_heads * d))
    y = rows[0] if len(rows) == 1 else torch.cat(rows, dim=0)
    out_proj: Tensor = attn.out_proj(y)
    return out_proj


def transformer_forward(
    transformer: Any,
    x: Tensor,
    caches: Sequence[KVCache],
    ff_blocks: Sequence[Callable[[Tensor], Tensor]] | None = None,
) -> Tensor:
    """A ``StreamingTransformer`` over ``x`` ``[B, T, D]``, row ``r`` continuing ``caches[r]``.

    ``ff_blocks`` replaces each layer's feed-forward block (compiled versions of the same).
    """
    steps = x.shape[1]
    for cache in caches:
        cache.make_room(steps)
    for i, layer in enumerate(transformer.layers):
        update = _attend(layer.self_attn, layer.norm1(x), caches, i)
        x = x.to(update) + layer.layer_scale_1(update)
        x = ff_blocks[i](x) if ff_blocks is not None else feed_forward_block(layer)(x)
    for cache in caches:
        cache.offset += steps
    return x


# -- FlowLM ------------------------------------------------------------------------------------


@dataclass(slots=True, eq=False)
class FlowSettings:
    """Sampling settings of the flow head (the library's ``TTSModel`` attributes)."""

    temp: float
    decode_steps: int
    noise_clamp: float | None
    eos_threshold: float


@dataclass(slots=True, eq=False)
class FlowRunner:
    """The FlowLM of one model, run over per-stream caches; ``dtype`` is the backbone's."""

    flow_lm: Any
    settings: FlowSettings
    dtype: torch.dtype = torch.float32
    ff_blocks: Sequence[Callable[[Tensor], Tensor]] | None = None
    head: Callable[[Tensor, Tensor], tuple[Tensor, Tensor]] | None = None

    @property
    def ldim(self) -> int:
        return int(self.flow_lm.ldim)

    def new_cache(self, capacity: int, device: torch.device) -> KVCache:
        return KVCache.allocate(
            attention_modules(self.flow_lm.transformer), capacity, device=device, dtype=self.dtype
        )

    def prefill(self, cache: KVCache, tokens: Tensor, latents: Tensor | None = None) -> None:
        """Append text ``tokens`` ``[1, T]`` (then, for a replay, input ``latents`` ``[1, N, ldim]``)."""
        parts = [self.flow_lm.conditioner(tokens)]
        if latents is not None and latents.shape[1]:
            seq = torch.where(torch.isnan(latents), self.flow_lm.bos_emb, latents)
            parts.append(self.flow_lm.input_linear(seq.to(self.dtype)))
        x = torch.cat(parts, dim=1) if len(parts) > 1 else parts[0]
        transformer_forward(self.flow_lm.transformer, x.to(self.dtype), [cache], self.ff_blocks)

    def prefill_conditioning(self, cache: KVCache, conditioning: Tensor) -> None:
        """Append a voice prompt's conditioning ``[1, T, dim]`` (the library's audio-prompt pass)."""
        transformer_forward(self.flow_lm.transformer, conditioning.to(self.dtype), [cache], self.ff_blocks)

    def step(self, caches: Sequence[KVCache], inputs: Tensor, noise: Tensor) -> tuple[Tensor, Tensor]:
        """One latent per stream: ``inputs`` ``[B, 1, ldim]`` (NaN rows mean BOS), ``noise`` ``[B, ldim]``.

        Returns the next latents ``[B, 1, ldim]`` and the EOS decisions ``[B]``.
        """
        flow_lm = self.flow_lm
        seq = torch.where(torch.isnan(inputs), flow_lm.bos_emb, inputs)
        x = flow_lm.input_linear(seq.to(self.dtype))
        out = transformer_forward(flow_lm.transformer, x, caches, self.ff_blocks)
        out = flow_lm.out_norm(out.to(flow_lm.out_norm.weight.dtype))
        if flow_lm.z_proj is not None:
            out = flow_lm.z_proj(out)
        hidden = out.to(torch.float32)[:, -1]
        head = self.head or self.sample
        latent, eos = head(hidden, noise)
        return latent[:, None, :], eos

    def sample(self, hidden: Tensor, noise: Tensor) -> tuple[Tensor, Tensor]:
        """The flow head: EOS decision and the latent decoded from ``noise`` (library math)."""
        flow_lm = self.flow_lm
        eos = (flow_lm.out_eos(hidden) > self.settings.eos_threshold).view(-1)
        decode = _DECODERS.get(flow_lm.flow_type)
        if decode is None:
            raise ValueError(f"unknown flow type {flow_lm.flow_type!r}")
        latent = decode(partial(flow_lm.flow_net, hidden), noise, self.settings.decode_steps)
        return latent, eos

    def draw_noise(self, generator: torch.Generator, device: torch.device) -> Tensor:
        """One row of sampling noise, drawn exactly as the library draws it (``[1, ldim]``)."""
        std = self.settings.temp**0.5
        noise = torch.empty((1, self.ldim), dtype=torch.float32, device=device)
        clamp = self.settings.noise_clamp
        if clamp is None:
            noise.normal_(mean=0.0, std=std, generator=generator)
        else:
            torch.nn.init.trunc_normal_(noise, mean=0.0, std=std, a=-clamp, b=clamp, generator=generator)
        return noise


# -- Mimi decoder --------------------------------------------------------------------------------


@dataclass(slots=True, eq=False)
class MimiStream:
    """One stream's Mimi decoder state: convolution buffers (library layout) and a window KV cache."""

    convs: ModelState
    kv: KVCache
    fresh: bool = True


@dataclass(slots=True, eq=False)
class MimiRunner:
    """Mimi's decoder of one model, run over per-stream states."""

    mimi: Any
    emb_mean: Tensor
    emb_std: Tensor
    _conv_modules: list[tuple[str, Any]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._conv_modules = [
            (name, m)
            for name, m in self.mimi.named_modules()
            if isinstance(m, StatefulModule)
            and not isinstance(m, StreamingMultiheadAttention)
            and name.startswith(("decoder.", "upsample."))
        ]

    @property
    def steps_per_frame(self) -> int:
        return int(self.mimi.encoder_frame_rate / self.mimi.frame_rate)

    def new_stream(self, device: torch.device) -> MimiStream:
        convs = {name: m.init_state(1, sequence_length=0) for name, m in self._conv_modules}
        transformer = self.mimi.decoder_transformer.transformer
        attns = attention_modules(transformer)
        context = int(transformer.context)
        kv = KVCache.allocate(
            attns,
            context + MIMI_SLACK_STEPS,
            device=device,
            dtype=attns[0].in_proj.weight.dtype,
            context=context,
        )
        return MimiStream(convs, kv)

    def decode(self, streams: Sequence[MimiStream], latents: Tensor) -> Tensor:
        """Audio ``[B, samples]`` of one normalized latent per stream (``latents`` ``[B, 1, ldim]``)."""
        mimi = self.mimi
        state = streams[0].convs if len(streams) == 1 else self._stack([s.convs for s in streams])
        x = latents * self.emb_std + self.emb_mean
        x = mimi.quantizer(x.transpose(-1, -2))
        if mimi.encoder_frame_rate != mimi.frame_rate:
            x = mimi.upsample(x, state)
        proj = mimi.decoder_transformer
        h = x.transpose(1, 2)
        if proj.input_proj is not None:
            h = proj.input_proj(h)
        h = transformer_forward(proj.transformer, h, [s.kv for s in streams])
        x = proj.output_projs[0](h).transpose(1, 2)
        audio: Tensor = mimi.decoder(x, state)
        if len(streams) > 1:
            self._unstack(state, [s.convs for s in streams])
        return audio[:, 0, :]

    @staticmethod
    def _stack(states: Sequence[ModelState]) -> ModelState:
        return {
            name: {key: torch.cat([s[name][key] for s in states], dim=0) for key in states[0][name]}
            for name in states[0]
        }

    @staticmethod
    def _unstack(stacked: ModelState, states: Sequence[ModelState]) -> None:
        for name, module_state in stacked.items():
            for key, value in module_state.items():
                for r, s in enumerate(states):
                    s[name][key] = value[r : r + 1]
