"""Every reach into the inside of a Piper voice's graph, in one place.

A Piper voice (``NAME.onnx``) is a VITS graph exported by Piper's trainer: inputs ``input``
(phoneme ids), ``input_lengths`` and ``scales`` (noise, length, noise_w), ``sid`` on
multi-speaker voices, and one output, the audio. The backend needs two things the export does
not offer, and this module takes them from the graph's internals, so that an export that moves
them fails here (and in ``tests/test_backend_piper.py``) loudly instead of publishing word marks
that do not match the audio:

* **durations**: the graph rounds each id's predicted duration up (its one ``Ceil``, which feeds
  the length regulator's ``CumSum``) into frames of ``hop`` samples; ``sum(durations) * hop`` is
  exactly the audio length. ``open_piper_session`` adds that tensor as a second output.
* **seeded noise**: the export draws its two noises (durations' and the flow's) with
  ``RandomNormalLike``, from onnxruntime's generator, so no two runs agree and no seed reaches
  them. Each is replaced by the first ``size`` values of a new float input ``NOISE_INPUTS[k]``
  shaped like the tensor it stood for, which the backend fills from its own seeded generator.
  A buffer shorter than the tensor fails the run (``Reshape``), and the backend retries with a
  longer one.

Nothing here is Piper's code: this only edits the graph a user gives us, with onnx.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import onnx
import onnxruntime as ort
from onnx import TensorProto, helper

#: the graph inputs that stand for the export's random draws, in graph order
NOISE_INPUTS = ("warmline_noise_0", "warmline_noise_1")
_ZERO = "warmline_zero"
_ONE_DIM = "warmline_one_dim"


class PiperGraphError(ValueError):
    """The file is not a Piper VITS graph this module knows how to open."""


@dataclass(frozen=True, slots=True)
class PiperSession:
    """An onnxruntime session of a Piper voice, with durations as output 1 and seeded noise inputs."""

    session: Any
    #: the graph takes a speaker id (``sid``)
    multi_speaker: bool
    #: how many noise inputs it takes (``NOISE_INPUTS[:noises]``)
    noises: int


def open_piper_session(path: str, threads: int) -> PiperSession:
    """Load ``path`` with its durations exposed and its noise seeded; raises PiperGraphError."""
    try:
        model = onnx.load(path)
    except Exception as exc:
        raise PiperGraphError(f"not an ONNX file ({exc})") from exc
    graph = model.graph
    names = {i.name for i in graph.input}
    if not {"input", "input_lengths", "scales"} <= names or len(graph.output) != 1:
        raise PiperGraphError(f"not a Piper VITS graph (inputs {sorted(names)})")
    ceils = [n for n in graph.node if n.op_type == "Ceil"]
    if len(ceils) != 1:
        raise PiperGraphError(f"expected one Ceil (the durations) in the graph, found {len(ceils)}")
    _seed_noise(graph)
    graph.output.append(helper.make_tensor_value_info(ceils[0].output[0], TensorProto.FLOAT, None))
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = threads
    options.log_severity_level = 3
    try:
        session = ort.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])
    except Exception as exc:
        raise PiperGraphError(f"onnxruntime could not load it ({exc})") from exc
    noises = sum(1 for i in session.get_inputs() if i.name in NOISE_INPUTS)
    return PiperSession(session, "sid" in names, noises)


def _seed_noise(graph: Any) -> None:
    """Replace each ``RandomNormalLike`` by a slice of a noise input, reshaped like its input."""
    random = [n for n in graph.node if n.op_type == "RandomNormalLike"]
    if len(random) > len(NOISE_INPUTS):
        raise PiperGraphError(f"{len(random)} random draws in the graph; a Piper VITS graph has two")
    for node in random:
        if any(a.name in ("mean", "scale") for a in node.attribute):
            raise PiperGraphError("a random draw with its own mean or scale: not a Piper VITS graph")
    graph.initializer.extend(
        [
            helper.make_tensor(_ZERO, TensorProto.INT64, [1], [0]),
            helper.make_tensor(_ONE_DIM, TensorProto.INT64, [1], [1]),
        ]
    )
    for k, node in enumerate(random):
        noise = NOISE_INPUTS[k]
        like, out = node.input[0], node.output[0]
        graph.input.append(helper.make_tensor_value_info(noise, TensorProto.FLOAT, [None]))
        at = list(graph.node).index(node)
        graph.node.remove(node)
        replacement = [
            helper.make_node("Size", [like], [f"{noise}_size"]),
            helper.make_node("Reshape", [f"{noise}_size", _ONE_DIM], [f"{noise}_end"]),
            helper.make_node("Slice", [noise, _ZERO, f"{noise}_end"], [f"{noise}_flat"]),
            helper.make_node("Shape", [like], [f"{noise}_shape"]),
            helper.make_node("Reshape", [f"{noise}_flat", f"{noise}_shape"], [out]),
        ]
        for j, new in enumerate(replacement):
            graph.node.insert(at + j, new)


__all__ = ["NOISE_INPUTS", "PiperGraphError", "PiperSession", "open_piper_session"]
