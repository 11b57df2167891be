"""The contract of ``tts_service.backends.hibari.hibari_compat``: the hibari internals it uses still hold.

Each test names the internal it checks; a hibari release that changes one fails here, loudly,
before it changes the word marks or the chunks the hibari backend publishes.
"""

from __future__ import annotations

import re

import numpy as np
import onnx
import pytest
from hibari import Hibari, dsp, tts
from hibari.tts import ASSETS, MAX_PHONEMES

from tts_service.backends.hibari import hibari_compat as compat

VOICE_GRAPH = f"{ASSETS}/hibari.onnx"
#: one duration unit of the model: 25 ms at 24 kHz
UNIT_SAMPLES = 600
TEXT = "Dr. Smith paid $3.50 at 10:30, e.g. for pi 3.14."


@pytest.fixture(scope="module")
def hibari() -> Hibari:
    return Hibari()


def test_the_installed_hibari_is_the_tested_release_line() -> None:
    """pyproject pins the release line the compat module was written against."""
    assert compat.TESTED_HIBARI.check(), compat.TESTED_HIBARI.installed


def test_the_durations_tensor_is_the_int64_cast_that_feeds_the_length_regulator() -> None:
    """``/Cast_32_output_0`` is made by a Cast to int64 and summed into the frame count by ``CumSum``."""
    graph = onnx.load(VOICE_GRAPH).graph
    (cast,) = [n for n in graph.node if compat.DURATIONS_TENSOR in n.output]
    assert cast.op_type == "Cast"
    assert {a.name: a.i for a in cast.attribute}["to"] == onnx.TensorProto.INT64
    consumers = {n.op_type for n in graph.node if compat.DURATIONS_TENSOR in n.input}
    assert "CumSum" in consumers
    assert compat.DURATIONS_TENSOR not in [o.name for o in graph.output]


@pytest.mark.parametrize("speed", [0.5, 1.0, 2.0])
def test_the_exposed_durations_are_one_per_id_and_sum_to_the_audio(hibari: Hibari, speed: float) -> None:
    """The seventh output has one int64 duration per id, and their sum times 600 is the audio length."""
    session = compat.open_duration_session(VOICE_GRAPH, threads=1)
    ids = hibari.ids(hibari.phonemize(TEXT)[0])
    feeds = {"ids": np.asarray([ids], np.int64), "speed": np.asarray([speed], np.float32)}
    out = session.run(None, feeds)
    assert len(out) == 7
    durations = out[6]
    assert durations.dtype == np.int64 and durations.shape == (len(ids),)
    audio = dsp.synth(*(o[0] for o in out[:6]), np.random.default_rng(0))
    assert int(durations.sum()) * UNIT_SAMPLES == len(audio)


def test_the_duration_session_gives_hibaris_own_audio(hibari: Hibari) -> None:
    """The six outputs hibari reads are unchanged by exposing the durations: same seed, same samples."""
    session = compat.open_duration_session(VOICE_GRAPH, threads=1)
    ids = hibari.ids(hibari.phonemize(TEXT)[0])
    feeds = {"ids": np.asarray([ids], np.int64), "speed": np.asarray([1.0], np.float32)}
    *outputs, _ = session.run(None, feeds)
    ours = dsp.synth(*(o[0] for o in outputs), np.random.default_rng(3))
    np.testing.assert_array_equal(ours, hibari.from_ids(ids, 1.0, np.random.default_rng(3)))


def test_the_clause_split_mirrors_hibaris_private_pattern() -> None:
    """``CLAUSE_SPLIT`` is ``hibari.tts._CLAUSE``: same pattern, same flags."""
    private = tts._CLAUSE
    assert isinstance(private, re.Pattern)
    assert (compat.CLAUSE_SPLIT.pattern, compat.CLAUSE_SPLIT.flags) == (private.pattern, private.flags)


def test_hibari_splits_an_over_long_sentence_at_the_clause_split(hibari: Hibari) -> None:
    """A sentence over ``MAX_PHONEMES`` becomes chunks made of whole ``CLAUSE_SPLIT`` parts."""
    text = "We checked the kitchen, the garden, the garage and the attic; " * 8 + "and found nothing."
    (sentence,) = Hibari.split_sentences(text)
    phonemes = hibari.g2p(sentence)
    assert len(phonemes) > MAX_PHONEMES
    chunks = hibari.phonemize(text)
    assert len(chunks) > 1 and all(len(c) <= MAX_PHONEMES for c in chunks)
    parts = compat.CLAUSE_SPLIT.split(phonemes)
    assert [p for c in chunks for p in compat.CLAUSE_SPLIT.split(c)] == parts
