"""A barge-in that can be taken back, on a fake clock: pause at once, then interrupt or resume."""

from __future__ import annotations

import pytest

from agent.turn_taking.barge_in import BargeIn, Interrupt, PauseBot, ResumeBot, StartTurn


def speaking() -> BargeIn:
    barge = BargeIn(no_words_s=0.6, max_pause_s=3.0)
    barge.bot_started(0.0)
    return barge


def test_the_bot_pauses_the_moment_the_caller_speaks_over_it() -> None:
    """Speech over the bot: PauseBot; speech while the bot is silent: an ordinary turn."""
    assert speaking().speech_started(1.0) == [PauseBot()]
    assert BargeIn().speech_started(1.0) == [StartTurn()]


def test_a_backchannel_resumes_the_bot_and_its_transcript_is_dropped() -> None:
    """ "yeah" over the bot: ResumeBot carrying the words to forget, whichever comes first."""
    barge = speaking()
    barge.speech_started(1.0)
    assert barge.words("yeah", 1.3, final=True) == []  # the STT's final comes before the VAD stop
    assert barge.speech_stopped(1.35) == [ResumeBot("yeah")]
    other = speaking()
    other.speech_started(1.0)
    other.speech_stopped(1.3)
    assert other.words("uh huh", 1.35, final=True) == [ResumeBot("uh huh")]
    assert barge.resumed == 1 and not barge.paused


def test_real_words_interrupt_even_as_an_interim_and_stop_words_always_do() -> None:
    """An interim "two people" interrupts once the caller has spoken longer than a backchannel;
    "yeah" or one word as interim does not (a one-word partial hypothesis is too often wrong),
    its final does; a stop word needs neither company nor time."""
    barge = speaking()
    barge.speech_started(1.0)
    assert barge.words("yeah", 1.2, final=False) == []
    assert barge.words("hello", 1.25, final=False) == []
    assert barge.words("two people", 1.7, final=False) == [Interrupt("two people")]
    one = speaking()
    one.speech_started(1.0)
    assert one.words("stop", 1.2, final=False) == [Interrupt("stop")]  # a stop word needs no company
    final = speaking()
    final.speech_started(1.0)
    assert final.words("hello", 1.4, final=True) == [Interrupt("hello")]
    again = speaking()
    again.speech_started(2.0)
    assert again.words("yeah wait", 2.4, final=True) == [Interrupt("yeah wait")]


def test_a_short_sound_misheard_as_words_waits_for_its_final_transcript() -> None:
    """ "Right." half-decoded as "bring a" 0.25 s in: not yet an interruption; the final "right"
    is a backchannel and the bot resumes."""
    barge = speaking()
    barge.speech_started(1.0)
    assert barge.words("bring a", 1.25, final=False) == []
    assert barge.words("right", 1.3, final=True) == []
    assert barge.speech_stopped(1.32) == [ResumeBot("right")]


def test_a_noise_with_no_words_resumes_the_bot_within_the_bound() -> None:
    """No transcript within no_words_s after the caller stops: ResumeBot; a pause never lasts forever."""
    barge = speaking()
    barge.speech_started(1.0)
    barge.speech_stopped(1.2)
    assert barge.tick(1.7) == [] and barge.next_deadline_s() == pytest.approx(1.8)
    assert barge.tick(1.81) == [ResumeBot("")]
    long = speaking()
    long.speech_started(1.0)  # speaks on with no recognisable words
    assert long.next_deadline_s() == 4.0 and long.tick(4.0) == [ResumeBot("")]


def test_after_an_interruption_the_bot_is_silent_so_the_next_speech_is_a_turn() -> None:
    """Interrupt ends the bot's turn: further speech starts an ordinary turn, not a pause."""
    barge = speaking()
    barge.speech_started(1.0)
    assert barge.words("no thanks", 1.4, final=True) == [Interrupt("no thanks")]
    assert barge.speech_started(3.0) == [StartTurn()]
