"""One BLAS thread for the agent's process: numpy's matrix products must not spin a second core.

    with one_blas_thread():          # the agent app's whole life (``agent.server``'s lifespan)
        ...                          # whisper, Smart Turn, every call

Why: numpy's OpenBLAS keeps a pool of one thread per core, and after each matrix product its
threads spin, waiting for the next one, for about a tenth of a second. The agent makes small
products at every pause of the caller: the mel filter bank of whisper's features
(``agent.stt.tiny_model``) and of Smart Turn's, both at the same moment. On a 2-core machine the
spinning thread took a core from whichever of them it was not helping: side by side, whisper's
transcription at a pause took a median 224 ms with the pool and 174 ms on one thread, Smart Turn
112 ms and 89, its slowest tenth 159 and 105 (``benchmarks/blas_bench.py``). The products are a
few hundred kilobytes: a second thread gains nothing on them. Every call's recognizer, Smart Turn
and VAD already run on one thread each (``cpu_threads=1``, ONNX's ``intra_op_num_threads=1``);
this holds numpy to the same.

The limit is process-wide (OpenBLAS has one pool) and restored when the block ends; it reaches
every BLAS library loaded in the process (threadpoolctl finds them), which for the agent is
numpy's.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from threadpoolctl import threadpool_info, threadpool_limits

__all__ = ["blas_threads", "one_blas_thread"]


@contextlib.contextmanager
def one_blas_thread() -> Iterator[None]:
    """Every loaded BLAS library on one thread for the block; their own counts again after it."""
    with threadpool_limits(limits=1, user_api="blas"):
        yield


def blas_threads() -> list[int]:
    """The thread count of each BLAS library loaded in the process (for logs and tests)."""
    return [int(pool["num_threads"]) for pool in threadpool_info() if pool.get("user_api") == "blas"]
