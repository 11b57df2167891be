"""Every use of hibari's private internals, in one place, checked against the version we know.

hibari's public API (``Hibari``) turns text into audio, but the hibari backend also needs where
each phoneme falls in that audio and hibari's exact chunking of long sentences. Each reach past
the public API lives here, named for what it does, so that a hibari release that changes one
breaks this module and its contract test (``tests/test_hibari_compat.py``) loudly, instead of
silently publishing word marks that do not match the audio:

* ``open_duration_session``: an onnxruntime session of a hibari voice graph with the per-id
  durations (in 600-sample units) as a seventh output. They are the graph's internal tensor
  ``DURATIONS_TENSOR`` (``/Cast_32_output_0``, the ``Cast`` to int64 that feeds the length
  regulator's ``CumSum``); ``sum(durations) * 600`` is exactly the audio length, which gives the
  backend its word marks and speech span for free.
* ``CLAUSE_SPLIT``: the pattern hibari splits an over-long sentence's phonemes at (after clause
  punctuation), a mirror of the private ``hibari.tts._CLAUSE``, so the backend's chunks are
  exactly ``Hibari.phonemize``'s.

``TESTED_HIBARI`` is the release line this module was written against (hibari-tts 0.2.1);
``TESTED_HIBARI.check()`` logs one warning on another (the contract test tells whether it still holds).
This module imports only onnx and onnxruntime, which the hibari backend needs anyway.
"""

from __future__ import annotations

import re
from typing import Any

import onnx
import onnxruntime as ort

from tts_service.tested_version import TestedVersion

#: the hibari-tts release line (major.minor) these internals were read from
TESTED_HIBARI = TestedVersion("hibari-tts", "0.2", contract_test="tests/test_hibari_compat.py")

#: hibari's internal per-id duration tensor (int64, in units of 600 samples)
DURATIONS_TENSOR = "/Cast_32_output_0"
#: where hibari splits an over-long sentence's phonemes (mirrors ``hibari.tts._CLAUSE``)
CLAUSE_SPLIT = re.compile(r"(?<=[,;:—])\s+")


def open_duration_session(path: str, threads: int) -> Any:
    """An onnxruntime session of hibari's graph with the per-id durations as a seventh output."""
    TESTED_HIBARI.check()
    graph = onnx.load(path)
    graph.graph.output.append(
        onnx.helper.make_tensor_value_info(DURATIONS_TENSOR, onnx.TensorProto.INT64, None)
    )
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = threads
    options.log_severity_level = 3
    # Without the arena, memory a long input took goes back when the run ends; with it, the
    # arena keeps the largest run's buffers for the life of the process (measured: +110 MB kept
    # after one 400-phoneme chunk, and it grew with every longer input). No speed difference
    # shows on ordinary sentences.
    options.enable_cpu_mem_arena = False
    return ort.InferenceSession(graph.SerializeToString(), options, providers=["CPUExecutionProvider"])


__all__ = [
    "CLAUSE_SPLIT",
    "DURATIONS_TENSOR",
    "TESTED_HIBARI",
    "open_duration_session",
]
