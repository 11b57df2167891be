"""Rewrites of a Piper voice's graph that keep its function and cut its cost: what the first
frame waits for on onnxruntime (see ``piper_compat`` for the cut into front, flow and decoder).

* ``fuse_layer_norms``: the export spells each layer norm out in nine nodes; one
  ``LayerNormalization`` each (36 in joe's front, which onnxruntime's own fusion misses).
* ``wrap_convs_2d`` (the front) and ``as_2d`` (the decoder): 1-D convolutions run as 2-D ones of
  height 1, onnxruntime's blocked layout, the faster path on a CPU.
* ``crop_decoder``: each of the decoder's upsampling stages renders only the frames its reach
  needs, with the same samples (``piper_compat.decode`` sets the crops).

Each rewrite checks the structure it needs and leaves anything else as it was; the tests in
``tests/test_backend_piper.py`` and ``tests/test_piper_streaming.py`` hold each to the graph as
exported. Nothing here is Piper's code: this only edits the graph a user gives us, with onnx.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

__all__ = ["CROP_INPUT", "as_2d", "crop_decoder", "fuse_layer_norms", "slice_nodes", "wrap_convs_2d"]

#: the decoder's crop inputs: ``{CROP_INPUT}{k}_start`` and ``_end``, samples into stage k's input
CROP_INPUT = "warmline_crop"
#: ops that mix no frames (pointwise, or a new axis at the end): reach 0
_POINTWISE = frozenset(
    ("Add", "Sub", "Mul", "Div", "LeakyRelu", "Relu", "Tanh", "Sigmoid", "Identity", "Cast", "Unsqueeze")
)


def fuse_layer_norms(graph: Any) -> int:
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


def wrap_convs_2d(graph: Any) -> int:
    """Run each 1-D convolution wider than one frame as a 2-D one of height 1, between an
    ``Unsqueeze`` and a ``Squeeze`` of that axis (``as_2d`` for a graph that cannot be made 2-D
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


def as_2d(model: Any) -> bool:
    """Make every 1-D convolution of ``model`` (the decoder) a 2-D one of height 1: the graph's
    inputs gain an axis of 1 before time, its outputs lose it again. The same function; but
    onnxruntime runs 2-D convolutions in its blocked channel layout (NCHWc), without the 1-D
    path's unfolding of every input into a kernel-wide copy: joe's first piece decodes a seventh
    faster. (The flow, whose couplings split and join channels, which leave the blocked layout
    each time, was slower so: it stays 1-D.) Anything but convolutions, pointwise ops, ops along
    the channel axis and the decoder's own crops (``crop_decoder``, moved to the new time axis)
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


def crop_decoder(model: Any) -> tuple[tuple[int, int], ...]:
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
        _, needs = slice_nodes(graph, [output], {x})
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


def slice_nodes(graph: Any, outputs: list[str], stop: set[str]) -> tuple[list[Any], set[str]]:
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
