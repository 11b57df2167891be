"""The caller's first quiet, before the VAD's stop: levels frame by frame on a fake clock."""

from __future__ import annotations

import numpy as np
import pytest

from agent.turn_taking.pause import (
    PauseBegan,
    PauseDetector,
    PauseEvent,
    PauseSettings,
    SpeechResumed,
    VoiceInPause,
)

FRAME_S = 0.02


def feed(
    detector: PauseDetector, levels_db: list[float], start_s: float = 0.0
) -> list[tuple[float, PauseEvent]]:
    """One 20 ms frame per level; the events, with the time of the frame that gave them."""
    events = []
    for i, level in enumerate(levels_db):
        now = start_s + (i + 1) * FRAME_S
        event = detector.feed_level(level, now, FRAME_S)
        if event is not None:
            events.append((round(now, 3), event))
    return events


def test_a_pause_is_reported_once_after_the_onset_from_where_the_quiet_began() -> None:
    """Speech at -20 dBFS, then -60: PauseBegan 60 ms in, dated at the first quiet frame."""
    pauses = PauseDetector()
    pauses.speech_started()
    events = feed(pauses, [-20.0] * 10 + [-60.0] * 10)
    assert events == [(0.26, PauseBegan(pytest.approx(0.2)))]
    assert pauses.paused


def test_a_plosive_release_inside_the_quiet_does_not_end_it() -> None:
    """A 40 ms burst (the "k" of "like") after the vowel: the quiet still began at the vowel's end."""
    pauses = PauseDetector(PauseSettings(onset_s=0.1))
    pauses.speech_started()
    events = feed(pauses, [-20.0] * 10 + [-60.0] * 2 + [-38.0] * 2 + [-60.0] * 5)
    assert events == [(0.3, PauseBegan(pytest.approx(0.2)))]


def test_a_short_word_after_a_reported_pause_is_reported_when_it_ends_and_the_pause_stands() -> None:
    """ "I have a friend ... who": the pause is reported 60 ms into the gap, then 60 ms of voice
    (shorter than ``blip_s``) and quiet again: ``VoiceInPause`` at its first quiet frame, no
    ``SpeechResumed``, and the silence still dated from the gap's start."""
    pauses = PauseDetector()
    pauses.speech_started()
    events = feed(pauses, [-20.0] * 10 + [-60.0] * 5 + [-38.0] * 3 + [-60.0] * 5)
    assert events == [(0.26, PauseBegan(pytest.approx(0.2))), (0.38, VoiceInPause(pytest.approx(0.06)))]
    assert pauses.paused
    # the quiet goes on from where it began: speech now resumes the same pause
    assert [type(e) for _, e in feed(pauses, [-20.0] * 5, 0.46)] == [SpeechResumed]


def test_a_release_of_one_frame_inside_a_reported_pause_is_no_word() -> None:
    """A stop's burst fills one 20 ms frame: below ``word_s``, nothing to report."""
    pauses = PauseDetector()
    pauses.speech_started()
    events = feed(pauses, [-20.0] * 10 + [-60.0] * 5 + [-35.0] + [-60.0] * 5)
    assert [type(e) for _, e in events] == [PauseBegan]


def test_speech_again_after_a_reported_pause_is_reported_and_the_next_pause_starts_over() -> None:
    pauses = PauseDetector()
    pauses.speech_started()
    events = feed(pauses, [-20.0] * 5 + [-60.0] * 4 + [-20.0] * 5 + [-60.0] * 4)
    assert [type(e) for _, e in events] == [PauseBegan, SpeechResumed, PauseBegan]
    assert events[2][1] == PauseBegan(pytest.approx(0.28))
    assert not PauseDetector().paused


def test_quiet_before_any_speech_and_a_quiet_line_are_not_pauses() -> None:
    """Nothing is a pause until the caller has been heard; the level is relative to their speech."""
    pauses = PauseDetector()
    pauses.speech_started()
    assert feed(pauses, [-70.0] * 20) == []
    soft = PauseDetector()
    soft.speech_started()
    # a soft caller at -40 dBFS: -50 is only 10 dB down, still speech; -66 is quiet
    assert feed(soft, [-40.0] * 10 + [-50.0] * 10) == []
    assert [type(e) for _, e in feed(soft, [-66.0] * 4, 0.4)] == [PauseBegan]


def test_on_a_line_with_hiss_the_quiet_is_near_the_noise_floor() -> None:
    """A caller at -30 dBFS over hiss at -48 (18 dB SNR) never drops 25 dB under their speech:
    their pause is the level falling back to the line's noise, 60 ms in as on a clean line."""
    pauses = PauseDetector()
    hiss = [-48.0] * 10  # the line before the caller speaks: where its noise floor is
    assert feed(pauses, hiss) == []
    pauses.speech_started()
    events = feed(pauses, [-30.0] * 10 + [-47.0] * 10, 0.2)
    assert events == [(0.46, PauseBegan(pytest.approx(0.4)))]


def test_a_soft_syllable_over_hiss_is_not_a_pause() -> None:
    """Near the noise floor is quiet only when it is also well under the speech (12 dB): a caller
    18 dB over the hiss whose level dips 10 dB between syllables is still talking."""
    pauses = PauseDetector()
    feed(pauses, [-48.0] * 10)
    pauses.speech_started()
    assert feed(pauses, [-30.0] * 10 + [-40.0] * 10, 0.2) == []


def test_pcm_frames_are_measured_in_dbfs() -> None:
    pauses = PauseDetector()
    pauses.speech_started()
    loud = (np.sin(np.arange(160) / 3) * 8000).astype("<i2").tobytes()
    quiet = np.zeros(160, "<i2").tobytes()
    events = [pauses.feed(f, (i + 1) * FRAME_S, FRAME_S) for i, f in enumerate([loud] * 5 + [quiet] * 3)]
    assert [type(e) for e in events if e is not None] == [PauseBegan]


def test_settings_out_of_range_are_refused() -> None:
    with pytest.raises(ValueError):
        PauseSettings(onset_s=0.0)
    with pytest.raises(ValueError, match="word_s"):
        PauseSettings(word_s=0.0)
