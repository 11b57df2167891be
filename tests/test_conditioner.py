"""Unit shaping: trimmed to speech, faded to zero at both ends, levelled to the turn's anchor."""

from __future__ import annotations

import itertools

import numpy as np

from tts_service.dsp import raised_cosine
from tts_service.engine.conditioner import UnitConditioner
from tts_service.engine.ports import UnitAudio
from tts_service.engine.segmenter import Boundary
from tts_service.engine.types import WordMark

SR = 24000


def _unit(amp: float, lead: int = 7200, speech: int = 24000, tail: int = 9600) -> UnitAudio:
    t = np.arange(speech) / SR
    body = (amp * np.sin(2 * np.pi * 180 * t)).astype(np.float32)
    audio = np.concatenate([np.zeros(lead, np.float32), body, np.zeros(tail, np.float32)])
    return UnitAudio(audio, (WordMark("word", lead, lead + speech),), lead, lead + speech)


def test_trims_lead_and_tail_silence_keeping_a_margin() -> None:
    """Lead and tail silence go; the speech and a few milliseconds around it stay."""
    shaped = UnitConditioner(SR).shape(_unit(0.3), Boundary.SENTENCE)
    assert 24000 <= len(shaped.samples) <= 24000 + int(0.06 * SR)
    assert shaped.words[0].start_sample <= int(0.01 * SR)


def test_both_ends_fade_through_zero() -> None:
    """The first and last samples are near zero even when speech starts at full level."""
    shaped = UnitConditioner(SR).shape(_unit(0.5, lead=0, tail=0), Boundary.SENTENCE)
    assert abs(float(shaped.samples[0])) < 0.01 and abs(float(shaped.samples[-1])) < 0.01


def test_later_units_are_levelled_to_the_first() -> None:
    """A unit 4 dB quieter than the turn's first unit is brought up to the same level."""
    c = UnitConditioner(SR)
    c.shape(_unit(0.3), Boundary.SENTENCE)
    quiet = c.shape(_unit(0.3 * 10 ** (-4 / 20)), Boundary.SENTENCE)
    assert abs(quiet.gain_db - 4.0) < 0.2


def test_gain_is_limited_and_never_clips() -> None:
    """Gain is limited to +-6 dB and the peak stays under the ceiling."""
    c = UnitConditioner(SR)
    c.shape(_unit(0.9), Boundary.SENTENCE)
    soft = c.shape(_unit(0.05), Boundary.SENTENCE)
    assert soft.gain_db <= 6.0 + 1e-6
    c2 = UnitConditioner(SR)
    c2.shape(_unit(0.9), Boundary.SENTENCE)
    loud = c2.shape(_unit(0.6), Boundary.SENTENCE)
    assert float(np.max(np.abs(loud.samples))) <= 0.97 + 1e-6


def test_pause_before_a_unit_follows_the_previous_punctuation() -> None:
    """No pause before the first unit; a sentence end gives a longer pause than a clause."""
    c = UnitConditioner(SR)
    assert c.shape(_unit(0.3), Boundary.CLAUSE).lead_silence == 0
    after_clause = c.shape(_unit(0.3), Boundary.SENTENCE).lead_silence
    after_sentence = c.shape(_unit(0.3), Boundary.SENTENCE).lead_silence
    assert 0 < after_clause < after_sentence


def test_silent_unit_yields_nothing() -> None:
    """A unit with no energy is dropped rather than padded."""
    unit = UnitAudio(np.zeros(4800, np.float32), (), 0, 4800)
    assert len(UnitConditioner(SR).shape(unit, Boundary.FLUSH).samples) == 0


def test_raised_cosine_runs_from_zero_to_one() -> None:
    """The fade ramp is monotonic and stays inside (0, 1)."""
    ramp = raised_cosine(64)
    assert np.all(np.diff(ramp) > 0) and 0 < ramp[0] < 0.01 and 0.99 < ramp[-1] < 1


def _shaped_in_pieces(unit: UnitAudio, cuts: list[int]) -> tuple[np.ndarray, tuple[WordMark, ...], int]:
    """``unit`` shaped as it arrives in pieces cut at ``cuts``: the audio, the words, the pause."""
    c = UnitConditioner(SR)
    edges = [0, *cuts, len(unit.samples)]
    first = c.open(
        UnitAudio(unit.samples[: edges[1]], unit.words, unit.speech_start, unit.speech_end), Boundary.SENTENCE
    )
    shaped = [first]
    for a, b in itertools.pairwise(edges[1:]):
        shaped.append(c.more(unit.samples[a:b], last=b == len(unit.samples)))
    got = [s for s in shaped if s is not None]
    assert c.at_turn_start is False  # the unit set the turn's level
    return np.concatenate([s.samples for s in got]), got[0].words, got[0].lead_silence


def test_a_unit_shaped_in_pieces_is_the_unit_shaped_whole() -> None:
    """A turn's first unit shaped as its pieces arrive (the first holding the speech's start at
    full level) comes out sample for sample as shaped whole, with the same words."""
    unit = _unit(0.3)
    whole = UnitConditioner(SR).shape(unit, Boundary.SENTENCE)
    for cuts in ([9000], [9000, 20000], [7500, 12000, 30000]):
        audio, words, lead = _shaped_in_pieces(unit, cuts)
        np.testing.assert_array_equal(audio, whole.samples)
        assert words == whole.words and lead == whole.lead_silence == 0


def test_a_first_piece_without_speech_waits_for_the_next() -> None:
    """A first piece of silence only hands out nothing; the speech starts in a later piece and
    the unit comes out as shaped whole."""
    unit = _unit(0.3)
    c = UnitConditioner(SR)
    assert (
        c.open(
            UnitAudio(unit.samples[:5000], unit.words, unit.speech_start, unit.speech_end), Boundary.SENTENCE
        )
        is None
    )
    audio, _, _ = _shaped_in_pieces(unit, [5000, 20000])
    np.testing.assert_array_equal(audio, UnitConditioner(SR).shape(unit, Boundary.SENTENCE).samples)
