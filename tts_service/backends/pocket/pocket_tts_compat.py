"""Every use of Pocket TTS's private internals, in one place, checked against the version we know.

The pocket backend runs Pocket TTS's compute in its own step loop (one KV cache per call, many
calls per forward pass), which needs a few of the library's private names. Each reach past its
public API lives here, named for what it does, so that a pocket-tts release that changes one
breaks this module and its contract test (``tests/test_pocket_tts_compat.py``) loudly, instead of
silently changing the audio or where a unit ends:

* ``feed_forward_block``: a transformer layer's feed-forward block with its residual
  (``StreamingTransformerLayer._ff_block``). The backend runs each layer's attention itself, per
  stream, then this block batched over the streams, and ``torch.compile``s it per layer.
* ``min_frames_before_eos``: the frames the library generates before it accepts EOS
  (``TTSModel._MIN_FRAMES_BEFORE_EOS``), so a unit ends where the library's own generation ends.
* ``predefined_voice_names``: the names of the packaged voices
  (``pocket_tts.utils.utils._ORIGINS_OF_PREDEFINED_VOICES``, whose keys
  ``get_predefined_voice`` accepts).
* ``max_gen_frames``: a mirror of ``TTSModel._estimate_max_gen_len`` (with its constants
  ``_TOKENS_PER_SECOND_ESTIMATE`` and ``_GEN_SECONDS_PADDING``), the library's cap on the frames of
  one chunk of text, computed from a token count without a model.

``TESTED_POCKET_TTS`` is the release line this module was written against (pocket-tts 4.0.1);
``TESTED_POCKET_TTS.check()`` logs one warning on another (the contract test tells whether it still
holds). This module imports neither torch nor pocket_tts at import time (``pocket_text`` stays
pure Python); the functions that need the library import it when called.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from tts_service.tested_version import TestedVersion

if TYPE_CHECKING:
    from torch import Tensor


#: the pocket-tts release line (major.minor) these internals were read from
TESTED_POCKET_TTS = TestedVersion("pocket-tts", "4.0", contract_test="tests/test_pocket_tts_compat.py")
#: ``TTSModel._TOKENS_PER_SECOND_ESTIMATE``: the speaking rate the library's length cap assumes
TOKENS_PER_SECOND_ESTIMATE = 3.0
#: ``TTSModel._GEN_SECONDS_PADDING``: seconds the library's length cap adds to every chunk
GEN_SECONDS_PADDING = 2.0
#: ``TTSModel._MIN_FRAMES_BEFORE_EOS`` of the tested release, for a model class without it
DEFAULT_MIN_FRAMES_BEFORE_EOS = 6


def feed_forward_block(layer: Any) -> Callable[[Tensor], Tensor]:
    """``layer``'s feed-forward block with its residual: ``x + scale(ff(norm2(x)))``, as the layer runs it."""
    block: Callable[[Tensor], Tensor] = layer._ff_block
    return block


def min_frames_before_eos(model: Any) -> int:
    """Frames the library generates for a chunk before it accepts the model's EOS signal."""
    return int(getattr(type(model), "_MIN_FRAMES_BEFORE_EOS", DEFAULT_MIN_FRAMES_BEFORE_EOS))


def predefined_voice_names() -> tuple[str, ...]:
    """The names of the library's packaged voices, in its order."""
    from pocket_tts.utils.utils import _ORIGINS_OF_PREDEFINED_VOICES

    return tuple(_ORIGINS_OF_PREDEFINED_VOICES)


def max_gen_frames(token_count: int, frame_rate: float) -> int:
    """The library's cap on the frames of one chunk of ``token_count`` tokens (``_estimate_max_gen_len``)."""
    return math.ceil((token_count / TOKENS_PER_SECOND_ESTIMATE + GEN_SECONDS_PADDING) * frame_rate)


__all__ = [
    "DEFAULT_MIN_FRAMES_BEFORE_EOS",
    "GEN_SECONDS_PADDING",
    "TESTED_POCKET_TTS",
    "TOKENS_PER_SECOND_ESTIMATE",
    "feed_forward_block",
    "max_gen_frames",
    "min_frames_before_eos",
    "predefined_voice_names",
]
