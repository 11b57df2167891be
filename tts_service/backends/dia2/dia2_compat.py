"""Every use of Dia2's private internals, in one place, checked against the version we know.

The dia2 backend runs Dia2's transformer step itself (one cache per call, many calls per forward
pass), which needs one of the library's private names. It lives here, named for what it does, so
that a Dia2 release that changes it breaks this module and its contract test
(``tests/test_dia2_compat.py``) loudly, instead of silently changing the audio:

* ``project_heads``: an attention layer's input projection split into heads, in its compute
  dtype (``dia2.core.layers.Attention._project_heads``: the linear layer in float32, then
  ``[B, T, heads, head_dim]`` cast to ``compute_dtype``), used for the queries, keys and values
  exactly as ``Attention.forward_incremental`` uses it.

``TESTED_DIA2`` is the release line this module was written against (dia2 0.1.0, from its git
repository: it is not on the package index, so the contract test skips wherever it is not
installed); ``TESTED_DIA2.check()`` logs one warning on another. Like the rest of the dia2 backend, this
module imports neither dia2 nor torch: it works on the library's objects it is handed, so it
imports wherever dia2 is not installed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tts_service.tested_version import TestedVersion

if TYPE_CHECKING:
    from torch import Tensor


#: the dia2 release line (major.minor) these internals were read from
TESTED_DIA2 = TestedVersion("dia2", "0.1", contract_test="tests/test_dia2_compat.py")


def project_heads(attn: Any, proj: Any, x: Tensor, heads: int) -> Tensor:
    """``proj(x)`` of Dia2 attention ``attn`` as ``[B, T, heads, head_dim]`` in its compute dtype."""
    out: Tensor = attn._project_heads(proj, x, heads)
    return out


__all__ = ["TESTED_DIA2", "project_heads"]
