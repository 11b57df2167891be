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
  context: each stage's input is cropped to its reach (``_crop_decoder``), the same samples for
  less compute. The cut is found by structure, not trusted by name: ``z`` is what the first
  ``/dec/`` ``Conv`` reads, the mask the other factor of the ``Mul`` that makes it from the flow's
  output, ``z_p`` what the first ``/flow/`` node reads from outside the flow; the flow must need
  nothing else than ``z_p`` and the mask, the decoder nothing else than ``z`` (else
  PiperGraphError). A multi-speaker graph conditions the flow and decoder on the speaker too; it
  is kept whole (``decoder`` is None) and rendered a unit at a time, as before.

Nothing here is Piper's code: this only edits the graph a user gives us, with onnx.
"""

from __future__ import annotations

import logging
import math
import re
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper

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
#: the decoder's crop inputs: ``{CROP_INPUT}{k}_start`` and ``_end``, samples into stage k's input
CROP_INPUT = "warmline_crop"
#: ops that mix no frames (pointwise, or a new axis at the end): reach 0
_POINTWISE = frozenset(
    ("Add", "Sub", "Mul", "Div", "LeakyRelu", "Relu", "Tanh", "Sigmoid", "Identity", "Cast", "Unsqueeze")
)
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
    #: the decoder's crops (``_crop_decoder``), in graph order: each stage's samples per latent frame
    #: and the latent frames of context its input keeps each side of the frames asked for
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
    # around start:end (``_crop_decoder``), so the context frames are not rendered at full rate
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
    _fuse_layer_norms(graph)
    durations = _cap_durations(graph, ceils[0])
    multi_speaker = "sid" in names
    if multi_speaker:
        graph.output.append(helper.make_tensor_value_info(durations, TensorProto.FLOAT, None))
        front = _session(model, threads)
        noises = sum(1 for i in front.get_inputs() if i.name in NOISE_INPUTS)
        return PiperSession(front, None, None, multi_speaker, noises)
    models, cut = _split(model, durations)
    _share_shapes(models[0])
    _wrap_convs_2d(models[0].graph)
    crops = _crop_decoder(models[2])
    _as_2d(models[2])
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
    decoder_nodes, needs = _slice(graph, [output.name], {latent})
    if needs != {latent}:
        raise PiperGraphError(f"the decoder needs more than its latent: {sorted(needs)}")
    flow_nodes, needs = _slice(graph, [latent], {prior, mask})
    if needs != {prior, mask}:
        raise PiperGraphError(f"the flow needs more than the latent prior and mask: {sorted(needs)}")
    front_nodes, front_needs = _slice(graph, [prior, durations], set())

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


def _fuse_layer_norms(graph: Any) -> int:
    """Replace each layer norm the export spelled out (``ReduceMean``, ``Sub``, ``Pow`` 2,
    ``ReduceMean``, ``Add`` eps, ``Sqrt``, ``Div``, ``Mul`` gamma, ``Add`` beta over the last axis)
    by one ``LayerNormalization``: the same function, which onnxruntime's own fusion misses on
    these graphs. A Piper graph has some 36 of them (the text encoder's and the duration
    predictor's), and the front's time goes mostly to its nodes' count. Returns how many."""
    nodes = list(graph.node)
    consumers: dict[str, list[Any]] = {}
    for node in nodes:
        for name in node.input:
            consumers.setdefault(name, []).append(node)
    constants = {n.output[0]: n for n in nodes if n.op_type == "Constant"}
    weights = {t.name: t for t in graph.initializer}

    def scalar(name: str) -> float | None:
        if name in weights:
            value = numpy_helper.to_array(weights[name])
        elif name in constants:
            attr = next((a for a in constants[name].attribute if a.name == "value"), None)
            if attr is None:
                return None
            value = numpy_helper.to_array(attr.t)
        else:
            return None
        return float(value) if value.size == 1 else None

    def only(name: str, op: str) -> Any | None:
        users = consumers.get(name, [])
        return users[0] if len(users) == 1 and users[0].op_type == op else None

    def last_axis(node: Any) -> bool:
        return _ints(node, "axes", []) == [-1] and all(
            a.name != "keepdims" or a.i == 1 for a in node.attribute
        )

    fused = 0
    for mean in nodes:
        if mean.op_type != "ReduceMean" or not last_axis(mean):
            continue
        x = mean.input[0]
        sub = only(mean.output[0], "Sub")
        if sub is None or list(sub.input) != [x, mean.output[0]]:
            continue
        users = consumers.get(sub.output[0], [])
        if sorted(u.op_type for u in users) != ["Div", "Pow"]:
            continue
        pow_, div = sorted(users, key=lambda u: u.op_type != "Pow")
        var = only(pow_.output[0], "ReduceMean")
        if var is None or not last_axis(var) or scalar(pow_.input[1]) != 2.0:
            continue
        eps = only(var.output[0], "Add")
        sqrt = None if eps is None else only(eps.output[0], "Sqrt")
        if eps is None or sqrt is None or list(div.input) != [sub.output[0], sqrt.output[0]]:
            continue
        epsilon = scalar(next((i for i in eps.input if i != var.output[0]), ""))
        mul = only(div.output[0], "Mul")
        add = None if mul is None else only(mul.output[0], "Add")
        if epsilon is None or mul is None or add is None:
            continue
        gamma = next((i for i in mul.input if i != div.output[0]), "")
        beta = next((i for i in add.input if i != mul.output[0]), "")
        if gamma not in weights or beta not in weights or len(weights[gamma].dims) != 1:
            continue
        if list(weights[gamma].dims) != list(weights[beta].dims):
            continue
        at = list(graph.node).index(add)
        graph.node.insert(
            at,
            helper.make_node(
                "LayerNormalization", [x, gamma, beta], [add.output[0]], axis=-1, epsilon=epsilon
            ),
        )
        for node in (mean, sub, pow_, var, eps, sqrt, div, mul, add):
            graph.node.remove(node)
        fused += 1
    return fused


def _share_shapes(model: Any) -> int:
    """Point each ``Shape`` node at the first tensor of the same shape, by onnxruntime's symbolic
    shape inference: the export takes the shape of a fresh tensor for every reshape, pad and mask
    (122 ``Shape`` nodes in joe's front, of 27 distinct shapes), and once they read the same
    tensor, onnxruntime's common subexpression elimination merges the ``Gather``, ``Unsqueeze``,
    ``Concat`` and ``Range`` chains that follow: joe's front runs 1,423 nodes instead of 1,986,
    the same outputs to the bit. Only shapes in the phoneme count's own symbols are shared (not
    one that inference had to guess, as the count of a ``NonZero``); without sympy (onnxruntime's
    ``symbolic`` extra), or if inference fails, nothing changes. Returns how many were moved."""
    try:
        from onnxruntime.tools.symbolic_shape_infer import SymbolicShapeInference
    except ImportError:
        return 0
    ids = next((i for i in model.graph.input if i.name == "input"), None)
    trusted = {d.dim_param for d in ids.type.tensor_type.shape.dim if d.dim_param} if ids else set()
    quiet = logging.getLogger("onnxruntime.tools.symbolic_shape_infer")
    level = quiet.level
    quiet.setLevel(logging.ERROR)
    try:
        copy = onnx.ModelProto()
        copy.CopyFrom(model)
        inferred = SymbolicShapeInference.infer_shapes(copy, auto_merge=True, guess_output_rank=False)
    except Exception:
        return 0
    finally:
        quiet.setLevel(level)
    infos = [*inferred.graph.value_info, *inferred.graph.input, *inferred.graph.output]
    shapes: dict[str, tuple[int | str, ...]] = {}
    for info in infos:
        if not info.type.tensor_type.HasField("shape"):
            continue
        dims = tuple(d.dim_param or d.dim_value for d in info.type.tensor_type.shape.dim)
        symbols = {w for d in dims if isinstance(d, str) for w in re.findall(r"[A-Za-z_]\w*", d)}
        if all(d != 0 and d != "" for d in dims) and symbols <= trusted:
            shapes[info.name] = dims
    produced = {out: node for node in model.graph.node for out in node.output}
    first: dict[tuple[int | str, ...], str] = {}
    moved = 0
    for node in model.graph.node:
        if node.op_type != "Shape" or node.attribute or node.input[0] not in shapes:
            continue
        source = produced.get(node.input[0])
        if source is not None and any(i in NOISE_INPUTS for i in source.input):
            continue  # a slice of the noise has its shape by the buffer's length, not by inference
        shape = shapes[node.input[0]]
        if shape in first:
            node.input[0] = first[shape]
            moved += 1
        else:
            first[shape] = node.input[0]
    return moved


def _wrap_convs_2d(graph: Any) -> int:
    """Run each 1-D convolution wider than one frame as a 2-D one of height 1, between an
    ``Unsqueeze`` and a ``Squeeze`` of that axis (``_as_2d`` for a graph that cannot be made 2-D
    as a whole): onnxruntime's blocked layout pays for its reorders around each one in the
    front (the text encoder's and duration predictor's 3-wide convolutions over the ids): joe's
    front on the first units 5.81 -> 5.28 ms (not in the flow, which it made slower). Returns
    how many."""
    weights = {t.name: t for t in graph.initializer}
    axis = "warmline_conv_height_axis"
    nodes: list[Any] = []
    reshaped: set[str] = set()
    for node in graph.node:
        kernel = _ints(node, "kernel_shape", []) if node.op_type == "Conv" else []
        if (
            len(kernel) != 1
            or kernel[0] < 2
            or node.input[1] not in weights
            or any(a.name == "auto_pad" and a.s not in (b"", b"NOTSET") for a in node.attribute)
        ):
            nodes.append(node)
            continue
        w = node.input[1]
        if w not in reshaped:
            array = numpy_helper.to_array(weights[w])
            weights[w].CopyFrom(numpy_helper.from_array(array.reshape(*array.shape[:2], 1, -1), w))
            reshaped.add(w)
        pads = _ints(node, "pads", [0, 0])
        x, y = node.input[0], node.output[0]
        conv = helper.make_node(
            "Conv",
            [f"{y}_2d_in", *node.input[1:]],
            [f"{y}_2d"],
            name=node.name,
            kernel_shape=[1, kernel[0]],
            pads=[0, pads[0], 0, pads[1]],
            dilations=[1, _ints(node, "dilations", [1])[0]],
            strides=[1, _ints(node, "strides", [1])[0]],
            group=next((a.i for a in node.attribute if a.name == "group"), 1),
        )
        nodes += [
            helper.make_node("Unsqueeze", [x, axis], [f"{y}_2d_in"]),
            conv,
            helper.make_node("Squeeze", [f"{y}_2d", axis], [y]),
        ]
    wrapped = (len(nodes) - len(graph.node)) // 2
    if wrapped:
        graph.initializer.append(helper.make_tensor(axis, TensorProto.INT64, [1], [2]))
        del graph.node[:]
        graph.node.extend(nodes)
    return wrapped


def _as_2d(model: Any) -> bool:
    """Make every 1-D convolution of ``model`` (the decoder) a 2-D one of height 1: the graph's
    inputs gain an axis of 1 before time, its outputs lose it again. The same function; but
    onnxruntime runs 2-D convolutions in its blocked channel layout (NCHWc), without the 1-D
    path's unfolding of every input into a kernel-wide copy: joe's first piece decodes a seventh
    faster. (The flow, whose couplings split and join channels, which leave the blocked layout
    each time, was slower so: it stays 1-D.) Anything but convolutions, pointwise ops, ops along
    the channel axis and the decoder's own crops (``_crop_decoder``, moved to the new time axis)
    leaves the model as it was. Returns whether it changed."""
    work = onnx.ModelProto()
    work.CopyFrom(model)
    graph = work.graph
    weights = {t.name: t for t in graph.initializer}
    constants = {t.name: numpy_helper.to_array(t) for t in graph.initializer}
    for node in graph.node:
        if node.op_type == "Constant" and node.attribute and node.attribute[0].name == "value":
            constants[node.output[0]] = numpy_helper.to_array(node.attribute[0].t)
    last = {out.name for out in graph.output}
    reshaped: set[str] = set()
    for node in graph.node:
        op = node.op_type
        if op in ("Conv", "ConvTranspose"):
            if node.input[1] not in weights or len(_ints(node, "kernel_shape", [])) != 1:
                return False
            if any(a.name == "auto_pad" and a.s not in (b"", b"NOTSET") for a in node.attribute):
                return False
            pads = _ints(node, "pads", [0, 0])
            for name, value in (
                ("kernel_shape", [1, _ints(node, "kernel_shape", [])[0]]),
                ("pads", [0, pads[0], 0, pads[1]]),
                ("dilations", [1, _ints(node, "dilations", [1])[0]]),
                ("strides", [1, _ints(node, "strides", [1])[0]]),
                ("output_padding", [0, _ints(node, "output_padding", [0])[0]]),
            ):
                if name == "output_padding" and op == "Conv":
                    continue
                for a in list(node.attribute):
                    if a.name == name:
                        node.attribute.remove(a)
                node.attribute.append(helper.make_attribute(name, value))
            w = node.input[1]
            if w not in reshaped:
                kernel = numpy_helper.to_array(weights[w])
                weights[w].CopyFrom(numpy_helper.from_array(kernel.reshape(*kernel.shape[:2], 1, -1), w))
                reshaped.add(w)
        elif op in _POINTWISE and op != "Unsqueeze":
            continue
        elif op == "Unsqueeze" and all(out in last for out in node.output):
            continue  # the decoder's last node: one more axis, squeezed away below
        elif op in ("Split", "Concat"):
            if next((a.i for a in node.attribute if a.name == "axis"), 0) not in (0, 1):
                return False
        elif op == "Slice":
            axes = constants.get(node.input[3]) if len(node.input) > 3 and node.input[3] else None
            if axes is None:
                return False
            on = [int(a) for a in np.asarray(axes).reshape(-1)]
            if node.input[3] == f"{CROP_INPUT}_axis":
                continue
            if any(a not in (0, 1) for a in on):
                return False
        else:
            return False
    for t in graph.initializer:
        if t.name == f"{CROP_INPUT}_axis":
            t.CopyFrom(helper.make_tensor(t.name, TensorProto.INT64, [1], [3]))
    axis = "warmline_height_axis"
    graph.initializer.append(helper.make_tensor(axis, TensorProto.INT64, [1], [2]))
    for inp in graph.input:
        if inp.type.tensor_type.elem_type != TensorProto.FLOAT:
            continue
        flat = inp.name
        for node in graph.node:
            for i, name in enumerate(node.input):
                if name == flat:
                    node.input[i] = f"{flat}_2d"
        graph.node.insert(0, helper.make_node("Unsqueeze", [flat, axis], [f"{flat}_2d"]))
    for out in graph.output:
        for node in graph.node:
            for i, name in enumerate(node.output):
                if name == out.name:
                    node.output[i] = f"{out.name}_2d"
        graph.node.append(helper.make_node("Squeeze", [f"{out.name}_2d", axis], [out.name]))
    model.CopyFrom(work)
    return True


def _crop_decoder(model: Any) -> tuple[tuple[int, int], ...]:
    """Crop the input of each of the decoder's upsampling stages (a ``ConvTranspose``) to the
    frames its stage and the later ones reach: a ``Slice`` on the time axis whose start and end
    are new inputs (``decode`` sets them). The HiFi-GAN decoder's reach, some ten latent frames,
    is nearly all in its first stages; its later ones, at 64 and 256 samples a frame and most of
    its compute, reach a frame or less, yet rendered all of ``DECODER_CONTEXT_FRAMES`` each side.
    A crop keeps the frames within the reach of what follows it, rounded up to whole frames (the
    reach is a bound: a ``ConvTranspose`` counts one input sample more than its kernel spans),
    so the samples asked for are the same (to float rounding) with and without it: on joe, 10,
    2 and 1 frames at 1, 8 and 64 samples a frame. The reach is read from
    the graph (each ``Conv``'s kernel, dilation and pads, each ``ConvTranspose``'s stride); a
    stage after which some op might mix frames otherwise, or that reads anything but its input,
    is not cropped. Returns each crop's (samples per frame, context frames) in input order."""
    graph = model.graph
    nodes = list(graph.node)
    weights = {i.name for i in graph.initializer}
    # samples per latent frame of each tensor, from the decoder's input (one)
    rate: dict[str, int] = {graph.input[0].name: 1}
    for node in nodes:
        r = max((rate.get(i, 0) for i in node.input), default=0)
        if node.op_type == "ConvTranspose":
            r *= _ints(node, "strides", [1])[0]
        for out in node.output:
            rate[out] = r
    # latent frames each tensor's values reach to the decoder's output (None: cannot tell)
    reach: dict[str, float | None] = {graph.output[0].name: 0.0}
    for node in reversed(nodes):
        after = [reach.get(out) for out in node.output if out in reach]
        if not after:
            continue
        own = _radius(node, weights)
        r_in = max((rate.get(i, 0) for i in node.input if i not in weights), default=0)
        ahead = None
        if own is not None and r_in > 0 and None not in after:
            ahead = max(a or 0.0 for a in after) + own / r_in
        for i in node.input:
            if i and i not in weights:
                known = reach.get(i, 0.0)
                reach[i] = None if ahead is None or known is None else max(known, ahead)
    output = graph.output[0].name
    crops: list[tuple[int, int]] = []
    for node in nodes:
        if node.op_type != "ConvTranspose":
            continue
        x = node.input[0]
        _, needs = _slice(graph, [output], {x})
        ahead = reach.get(x)
        if needs != {x} or ahead is None or rate.get(x, 0) <= 0:
            continue
        k = len(crops)
        start, end = f"{CROP_INPUT}{k}_start", f"{CROP_INPUT}{k}_end"
        graph.input.extend([helper.make_tensor_value_info(n, TensorProto.INT64, [1]) for n in (start, end)])
        if not crops:
            graph.initializer.append(helper.make_tensor(f"{CROP_INPUT}_axis", TensorProto.INT64, [1], [2]))
        cropped = f"{x}_{CROP_INPUT}{k}"
        graph.node.insert(
            list(graph.node).index(node),
            helper.make_node("Slice", [x, start, end, f"{CROP_INPUT}_axis"], [cropped]),
        )
        node.input[0] = cropped
        crops.append((rate[x], math.ceil(ahead)))
    return tuple(crops)


def _ints(node: Any, name: str, default: list[int]) -> list[int]:
    return next((list(a.ints) for a in node.attribute if a.name == name), default)


def _radius(node: Any, weights: set[str]) -> float | None:
    """How many of its input's samples either side one output sample of ``node`` reads (None:
    an op this does not know, or a convolution not over the time axis alone)."""
    if node.op_type in _POINTWISE:
        return 0.0
    if node.op_type not in ("Conv", "ConvTranspose") or node.input[0] in weights:
        return None
    if any(a.name == "auto_pad" and a.s not in (b"", b"NOTSET") for a in node.attribute):
        return None
    kernel = _ints(node, "kernel_shape", [])
    if len(kernel) != 1:
        return None
    k = kernel[0]
    pad = _ints(node, "pads", [0, 0])[0]
    stride = _ints(node, "strides", [1])[0]
    if node.op_type == "Conv":
        dilation = _ints(node, "dilations", [1])[0]
        return None if stride != 1 else float(max(pad, (k - 1) * dilation - pad))
    return max(pad, k - 1 - pad) / stride + 1.0


def _slice(graph: Any, outputs: list[str], stop: set[str]) -> tuple[list[Any], set[str]]:
    """The nodes that compute ``outputs`` (in graph order), and the tensors they read from outside
    (graph inputs, or the names in ``stop``, where the walk ends)."""
    produced = {out: node for node in graph.node for out in node.output}
    weights = {i.name for i in graph.initializer}
    keep: dict[int, Any] = {}
    needs: set[str] = set()
    seen: set[str] = set()
    todo = list(outputs)
    while todo:
        name = todo.pop()
        if not name or name in seen or name in weights:
            continue
        seen.add(name)
        node = produced.get(name)
        if name in stop or node is None:
            needs.add(name)
            continue
        keep[id(node)] = node
        todo.extend(node.input)
    return [n for n in graph.node if id(n) in keep], needs


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
