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
* **capped durations**: each id's frames are at most ``MAX_FRAMES_INPUT``'s value for it (a new
  float input of one value per id), so the backend can give the end-of-sentence id a single frame:
  its silence is cut from the audio anyway, and the decoder, two thirds of the compute, need not
  render it (a third of a short unit's frames).
* **seeded noise**: the export draws its two noises (durations' and the flow's) with
  ``RandomNormalLike``, from onnxruntime's generator, so no two runs agree and no seed reaches
  them. Each is replaced by the first ``size`` values of a new float input ``NOISE_INPUTS[k]``
  shaped like the tensor it stood for, which the backend fills from its own seeded generator.
  A buffer shorter than the tensor fails the run (``Reshape``), and the backend retries with a
  longer one.

* **streamed decoding**: a one-speaker graph is cut in three sessions: the **front** (ids -> the
  latent prior ``z_p`` [1, C, frames], the text's frames expanded by the durations and the flow's
  noise added, and the capped durations; the seeded noise is in it), the **flow** (``z_p`` -> the
  decoder's latent ``z``) and the HiFi-GAN **decoder** (``z`` -> ``hop`` samples a frame). The
  flow and decoder are convolutions over frames only, so a slice decoded with enough context on
  each side (``FLOW_CONTEXT_FRAMES`` more for the flow, ``DECODER_CONTEXT_FRAMES`` for the
  decoder: the flow is five times cheaper a frame, so its wider reach costs little) matches the
  whole decode (``decode``), and the backend can hand the engine a unit's first 80 ms before the
  rest is decoded. The decoder's later upsampling stages reach a frame or two, not its whole
  context: each stage's input is cropped to its reach (``graph_rewrites.crop_decoder``), the same samples for
  less compute. The cut is found by structure, not trusted by name: ``z`` is what the first
  ``/dec/`` ``Conv`` reads, the mask the other factor of the ``Mul`` that makes it from the flow's
  output, ``z_p`` what the first ``/flow/`` node reads from outside the flow; the flow must need
  nothing else than ``z_p`` and the mask, the decoder nothing else than ``z`` (else
  PiperGraphError). A multi-speaker graph conditions the flow and decoder on the speaker too; it
  is kept whole (``decoder`` is None) and rendered a unit at a time, as before.

Nothing here is Piper's code: this only edits the graph a user gives us, with onnx.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper

from tts_service.backends.piper import graph_rewrites
from tts_service.backends.piper.graph_rewrites import CROP_INPUT, slice_nodes

#: the graph inputs that stand for the export's random draws, in graph order
NOISE_INPUTS = ("warmline_noise_0", "warmline_noise_1")
#: the graph input that caps each id's duration, in frames (float, one value per id)
MAX_FRAMES_INPUT = "warmline_max_frames"
#: latent frames of context each side of the decoder's slice: its reach. Measured on joe (medium):
#: with 10 a slice's audio is the whole decode's to float rounding (8: -50 dB of the peak, 6: -43)
DECODER_CONTEXT_FRAMES = 10
#: latent frames of context the flow takes beyond the decoder's. Measured on joe (medium), the worst
#: ``z`` value of a slice against the whole flow's, relative to its peak: 20 frames -63 dB, 16 -50 dB,
#: 12 -14 dB. See tests/test_piper_streaming.py
FLOW_CONTEXT_FRAMES = 20
_ZERO = "warmline_zero"
_ONE_DIM = "warmline_one_dim"


class PiperGraphError(ValueError):
    """The file is not a Piper VITS graph this module knows how to open."""


@dataclass(frozen=True, slots=True)
class PiperSession:
    """A Piper voice on onnxruntime: durations exposed, noise seeded, and (one speaker) cut in three.

    ``front`` takes the graph's inputs and the noise and cap inputs; its output 1 is the capped
    durations, its output 0 the latent ``z_p`` [1, C, frames] when ``decoder`` is set (decode it
    with ``decode``), else the audio itself (a multi-speaker graph, kept whole).
    """

    front: Any
    #: ``z_p`` and its frame mask -> ``z``; None when ``front`` renders the audio
    flow: Any | None
    #: ``z`` -> audio; None when ``front`` renders the audio
    decoder: Any | None
    #: the graph takes a speaker id (``sid``)
    multi_speaker: bool
    #: how many noise inputs it takes (``NOISE_INPUTS[:noises]``)
    noises: int
    #: the cut's tensor names: ``z_p``, its frame mask, ``z``
    cut: tuple[str, str, str] = ("", "", "")
    #: the decoder's crops (``graph_rewrites.crop_decoder``), in graph order: each stage's samples
    #: per latent frame and the latent frames of context its input keeps each side of those asked for
    crops: tuple[tuple[int, int], ...] = ()


def decode(
    graph: PiperSession, latent: npt.NDArray[np.float32], start: int, end: int
) -> npt.NDArray[np.float32]:
    """The audio of frames ``start:end`` of ``latent`` (the front's output 0), ``hop`` samples a frame.

    The decoder runs with ``DECODER_CONTEXT_FRAMES`` of context each side, the flow with
    ``FLOW_CONTEXT_FRAMES`` more (none past the unit's ends, where the whole decode has none
    either), so slices joined match the whole decode.
    """
    if graph.flow is None or graph.decoder is None:
        raise PiperGraphError("this voice's graph is kept whole: it has no decoder to run on its own")
    frames = latent.shape[2]
    lo, hi = max(0, start - DECODER_CONTEXT_FRAMES), min(frames, end + DECODER_CONTEXT_FRAMES)
    flo, fhi = max(0, lo - FLOW_CONTEXT_FRAMES), min(frames, hi + FLOW_CONTEXT_FRAMES)
    prior, mask, name = graph.cut
    feeds = {prior: np.ascontiguousarray(latent[:, :, flo:fhi]), mask: np.ones((1, 1, fhi - flo), np.float32)}
    z = graph.flow.run(None, feeds)[0]
    dec_feeds: dict[str, npt.NDArray[Any]] = {name: np.ascontiguousarray(z[:, :, lo - flo : hi - flo])}
    # each later stage of the decoder reaches fewer frames: its input is cropped to that reach
    # around start:end (``graph_rewrites.crop_decoder``), so the context frames are not rendered at full rate
    a, b = 0, hi - lo
    for k, (rate, margin) in enumerate(graph.crops):
        na, nb = max(a, start - lo - margin), min(b, end - lo + margin)
        dec_feeds[f"{CROP_INPUT}{k}_start"] = np.asarray([(na - a) * rate], np.int64)
        dec_feeds[f"{CROP_INPUT}{k}_end"] = np.asarray([(nb - a) * rate], np.int64)
        a, b = na, nb
    audio = graph.decoder.run(None, dec_feeds)[0]
    audio = np.asarray(audio, np.float32).reshape(-1)
    hop = len(audio) // max(b - a, 1)
    if len(audio) != (b - a) * hop:
        raise PiperGraphError(f"the decoder made {len(audio)} samples for {b - a} frames")
    return audio[(start - lo - a) * hop : (end - lo - a) * hop]


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
    graph_rewrites.fuse_layer_norms(graph)
    durations = _cap_durations(graph, ceils[0])
    multi_speaker = "sid" in names
    if multi_speaker:
        graph.output.append(helper.make_tensor_value_info(durations, TensorProto.FLOAT, None))
        front = _session(model, threads)
        noises = sum(1 for i in front.get_inputs() if i.name in NOISE_INPUTS)
        return PiperSession(front, None, None, multi_speaker, noises)
    models, cut = _split(model, durations)
    graph_rewrites.wrap_convs_2d(models[0].graph)
    crops = graph_rewrites.crop_decoder(models[2])
    graph_rewrites.as_2d(models[2])
    front, flow, decoder = (_session(m, threads) for m in models)
    noises = sum(1 for i in front.get_inputs() if i.name in NOISE_INPUTS)
    return PiperSession(front, flow, decoder, multi_speaker, noises, cut, crops)


def _session(model: Any, threads: int) -> Any:
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = threads
    options.log_severity_level = 3
    try:
        return ort.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])
    except Exception as exc:
        raise PiperGraphError(f"onnxruntime could not load it ({exc})") from exc


def _split(model: Any, durations: str) -> tuple[tuple[Any, Any, Any], tuple[str, str, str]]:
    """The front (ids -> ``z_p``, durations), flow (``z_p``, mask -> ``z``) and decoder (``z`` ->
    audio) models of a graph, and the names ``z_p``, mask, ``z``."""
    graph = model.graph
    produced = {out: node for node in graph.node for out in node.output}
    dec = next((n for n in graph.node if n.op_type == "Conv" and n.name.startswith("/dec/")), None)
    if dec is None:
        raise PiperGraphError("no decoder in the graph (a Conv named /dec/...)")
    latent = dec.input[0]
    masking = produced.get(latent)
    flow = [n for n in graph.node if n.name.startswith("/flow/")]
    flow_out = {out for n in flow for out in n.output}
    if (
        masking is None
        or masking.op_type != "Mul"
        or not flow
        or not any(i in flow_out for i in masking.input)
    ):
        raise PiperGraphError("the decoder's input is not the flow's output times the frame mask")
    mask = next(i for i in masking.input if i not in flow_out)
    prior = next((i for i in flow[0].input if i and i not in flow_out and i in produced), None)
    if prior is None:
        raise PiperGraphError("the flow's first node reads no latent from the graph")
    output = graph.output[0]
    decoder_nodes, needs = slice_nodes(graph, [output.name], {latent})
    if needs != {latent}:
        raise PiperGraphError(f"the decoder needs more than its latent: {sorted(needs)}")
    flow_nodes, needs = slice_nodes(graph, [latent], {prior, mask})
    if needs != {prior, mask}:
        raise PiperGraphError(f"the flow needs more than the latent prior and mask: {sorted(needs)}")
    front_nodes, front_needs = slice_nodes(graph, [prior, durations], set())

    def tensor(name: str, shape: list[int | None] | None = None) -> Any:
        return helper.make_tensor_value_info(name, TensorProto.FLOAT, shape)

    front = _model(
        model,
        front_nodes,
        [i for i in graph.input if i.name in front_needs],
        [tensor(prior), tensor(durations)],
    )
    flow_model = _model(
        model, flow_nodes, [tensor(prior, [1, None, None]), tensor(mask, [1, 1, None])], [tensor(latent)]
    )
    decoder = _model(model, decoder_nodes, [tensor(latent, [1, None, None])], [output])
    return (front, flow_model, decoder), (prior, mask, latent)


def _model(model: Any, nodes: list[Any], inputs: list[Any], outputs: list[Any]) -> Any:
    """A model of ``nodes`` with the weights they read, under ``model``'s opsets."""
    used = {i for n in nodes for i in n.input}
    weights = [t for t in model.graph.initializer if t.name in used]
    graph = helper.make_graph(nodes, model.graph.name, inputs, outputs, weights)
    out = helper.make_model(graph, opset_imports=list(model.opset_import))
    out.ir_version = model.ir_version
    return out


def _cap_durations(graph: Any, ceil: Any) -> str:
    """Put ``Min(durations, MAX_FRAMES_INPUT)`` between the ``Ceil`` and all that reads it; the
    capped durations' name."""
    raw = ceil.output[0]
    capped = f"{raw}_capped"
    for node in graph.node:
        for i, name in enumerate(node.input):
            if name == raw:
                node.input[i] = capped
    graph.input.append(helper.make_tensor_value_info(MAX_FRAMES_INPUT, TensorProto.FLOAT, [None]))
    at = list(graph.node).index(ceil)
    graph.node.insert(at + 1, helper.make_node("Min", [raw, MAX_FRAMES_INPUT], [capped]))
    return capped


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


__all__ = [
    "DECODER_CONTEXT_FRAMES",
    "FLOW_CONTEXT_FRAMES",
    "MAX_FRAMES_INPUT",
    "NOISE_INPUTS",
    "PiperGraphError",
    "PiperSession",
    "decode",
    "open_piper_session",
]
