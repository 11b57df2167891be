"""A barge-in that can be taken back, on a fake clock: pause at once, then interrupt or resume."""

from __future__ import annotations

import pytest

from agent.turn_taking.barge_in import (
    QUIET_BOUND_S,
    BargeIn,
    BargeInAction,
    DuckBot,
    Interrupt,
    PauseBot,
    ResumeBot,
    StartTurn,
)
from agent.turn_taking.confidence import Heard

FRAME_S = 0.02


def speaking() -> BargeIn:
    barge = BargeIn(no_words_s=0.6, max_pause_s=3.0)
    barge.bot_started(0.0)
    return barge


def read_audio(barge: BargeIn, since: float, until: float, *, lag: float = 0.0) -> list[BargeInAction]:
    """The caller's audio from ``since`` to ``until`` (s of audio), 20 ms a frame, each read
    ``lag`` s after it was said (a loaded machine reads it late); the acts of every frame."""
    acts: list[BargeInAction] = []
    at = since
    while at + FRAME_S <= until + 1e-9:
        at += FRAME_S
        acts += barge.audio_read(FRAME_S, at + lag)
    return acts


def test_the_bot_pauses_the_moment_the_caller_speaks_over_it() -> None:
    """Speech over the bot: PauseBot; speech while the bot is silent: an ordinary turn."""
    assert speaking().speech_started(1.0) == [PauseBot()]
    assert BargeIn().speech_started(1.0) == [StartTurn()]


def test_a_backchannel_resumes_the_bot_once_the_caller_stays_quiet_and_its_words_are_dropped() -> None:
    """ "yeah" over the bot: the answer goes on ducked at its words, and at full level with
    ResumeBot carrying the words to forget ``resume_quiet_s`` (0.3 s) after the VAD's stop,
    whether the final transcript comes before the stop or after it."""
    barge = speaking()
    barge.speech_started(1.0)
    # the STT's final comes before the VAD stop
    assert barge.words("yeah", 1.3, final=True) == [DuckBot()]
    assert barge.ducked and barge.paused
    assert barge.speech_stopped(1.35) == []
    assert barge.counting_quiet
    assert read_audio(barge, 1.35, 1.63) == []
    assert read_audio(barge, 1.63, 1.65) == [ResumeBot("yeah")]
    other = speaking()
    other.speech_started(1.0)
    other.speech_stopped(1.3)
    assert other.words("uh huh", 1.35, final=True) == [DuckBot()]
    assert read_audio(other, 1.3, 1.6)[-1:] == [ResumeBot("uh huh")]
    assert barge.resumed == 1 and not barge.paused and not barge.ducked


def test_a_first_word_and_a_comma_pause_are_not_resumed_over_the_rest_of_the_sentence() -> None:
    """ "Actually, can we make it seven?": "actually" alone reads like a backchannel, but the caller
    speaks again within ``resume_quiet_s``: the bot stays paused and the sentence interrupts."""
    barge = speaking()
    barge.speech_started(1.0)
    barge.words("actually", 1.5, final=True)
    barge.speech_stopped(1.55)
    assert read_audio(barge, 1.55, 1.75) == [] and barge.tick(1.75) == []
    assert barge.speech_started(1.8) == []  # still paused: no second PauseBot
    assert barge.words("can we make it seven", 3.0, final=True) == [Interrupt("can we make it seven")]


def test_the_wait_after_a_stop_counts_the_callers_audio_not_the_clock() -> None:
    """A loaded machine reads the caller's audio late: 0.12 s of the pause after "Actually," read
    by the clock 0.45 s after the VAD's stop. The VAD's start for "can we ..." comes within that
    audio, so the bot must not have resumed over it, whatever the clock says; audio that stops
    coming is bounded by the clock, ``QUIET_BOUND_S`` after the stop."""
    barge = speaking()
    barge.speech_started(1.0)
    barge.words("actually", 1.5, final=True)
    barge.speech_stopped(1.55)
    assert barge.next_deadline_s() == pytest.approx(1.55 + QUIET_BOUND_S)
    assert read_audio(barge, 1.55, 1.67, lag=0.33) == []  # read at 1.9-2.0 by the clock
    assert barge.tick(2.0) == []
    assert barge.speech_started(2.0) == []
    assert barge.words("can we make it seven", 3.0, final=True) == [Interrupt("can we make it seven")]
    stalled = speaking()  # the audio stops coming after the stop: the clock's bound resumes
    stalled.speech_started(1.0)
    stalled.words("yeah", 1.3, final=True)
    stalled.speech_stopped(1.35)
    assert read_audio(stalled, 1.35, 1.45) == []
    assert stalled.tick(1.35 + QUIET_BOUND_S - 0.01) == []
    assert stalled.tick(1.35 + QUIET_BOUND_S) == [ResumeBot("yeah")]


def test_real_words_interrupt_as_an_interim_once_the_speech_is_longer_than_a_backchannel() -> None:
    """An interim "two people" interrupts once the caller has spoken longer than a backchannel
    (1 s from the VAD's start); before that no interim does, not even a stop word (a partial
    hypothesis of something that short is too often wrong, and the bot is silent meanwhile); a
    final transcript of a sentence's words or of a stop word does."""
    barge = speaking()
    barge.speech_started(1.0)
    assert barge.words("yeah", 1.2, final=False) == []
    assert barge.words("two people", 1.7, final=False) == []
    assert barge.words("two people", 2.1, final=False) == [Interrupt("two people")]
    early = speaking()
    early.speech_started(1.0)
    assert early.words("stop", 1.2, final=False) == []
    assert early.words("stop", 1.3, final=True) == [Interrupt("stop")]
    final = speaking()
    final.speech_started(1.0)
    assert final.words("a table please", 1.4, final=True) == [Interrupt("a table please")]
    again = speaking()
    again.speech_started(2.0)
    assert again.words("yeah wait", 2.4, final=True) == [Interrupt("yeah wait")]


def test_short_speech_of_one_or_two_words_is_a_backchannel_whatever_they_were_heard_as() -> None:
    """ "Sure." read "to learn" at posteriors of 0.08, "Mm hmm." read "the hand" at 0.9: short and
    two words, so the bot resumes and the words are dropped (ducked back in at once where the
    recognizer does not trust them); as long as a turn, they interrupt."""
    guessed = Heard.of([("to", 0.1), ("learn", 0.08)], duration_s=1.0)
    barge = speaking()
    barge.speech_started(1.0)
    assert barge.words("to learn", 1.6, final=True, heard=guessed) == [DuckBot()]
    barge.speech_stopped(1.65)
    assert read_audio(barge, 1.65, 1.95)[-1:] == [ResumeBot("to learn")]
    sure = Heard.of([("the", 0.9), ("hand", 0.8)], duration_s=1.0)
    trusted = speaking()
    trusted.speech_started(1.0)
    assert trusted.words("the hand", 1.6, final=True, heard=sure) == []
    long = speaking()
    long.speech_started(1.0)
    assert long.words("to learn", 2.2, final=True, heard=guessed) == [Interrupt("to learn")]
    stopped = speaking()  # the final after the VAD's stop: the stretch's length still counts
    stopped.speech_started(1.0)
    stopped.speech_stopped(2.15)
    assert stopped.words("to learn", 2.2, final=True, heard=guessed) == [Interrupt("to learn")]


def test_short_speech_with_a_sentences_words_interrupts_even_if_they_are_wrong() -> None:
    """ "When do you close?" over the bot is as short as "Okay, sure." but read as three words
    ("when you close", low posteriors): a turn, not a backchannel."""
    guessed = Heard.of([("when", 0.3), ("you", 0.4), ("close", 0.2)], duration_s=0.8)
    barge = speaking()
    barge.speech_started(1.0)
    assert barge.words("when you close", 1.6, final=True, heard=guessed) == [Interrupt("when you close")]
    stop = speaking()  # a trusted stop word stops the bot however short
    stop.speech_started(1.0)
    assert stop.words("stop", 1.3, final=True, heard=Heard.of([("stop", 0.9)])) == [Interrupt("stop")]


def test_a_short_sound_misheard_as_words_waits_for_its_final_transcript() -> None:
    """ "Right." half-decoded as "bring a" 0.25 s in: not yet an interruption; the final "right"
    is a backchannel: the bot goes on ducked, and then resumes."""
    barge = speaking()
    barge.speech_started(1.0)
    assert barge.words("bring a", 1.25, final=False) == []
    assert barge.words("right", 1.3, final=True) == [DuckBot()]
    barge.speech_stopped(1.32)
    assert read_audio(barge, 1.32, 1.62)[-1:] == [ResumeBot("right")]


def test_a_noise_with_no_words_resumes_the_bot_within_the_bound() -> None:
    """No transcript within no_words_s after the caller stops: ResumeBot; a pause never lasts forever."""
    barge = speaking()
    barge.speech_started(1.0)
    barge.speech_stopped(1.2)
    assert read_audio(barge, 1.2, 1.7) == [] and barge.next_deadline_s() == pytest.approx(1.2 + QUIET_BOUND_S)
    assert read_audio(barge, 1.7, 1.8) == [ResumeBot("")]
    long = speaking()
    long.speech_started(1.0)  # speaks on with no recognisable words
    assert long.next_deadline_s() == 4.0 and long.tick(4.0) == [ResumeBot("")]


def test_words_that_come_after_a_resume_with_no_words_still_interrupt() -> None:
    """A loaded machine's recognizer can take longer than a noise's wait: the bot resumed over
    "Actually, can we make it seven instead?" with no words yet. When the words come, a turn's
    interrupt the resumed answer; a backchannel's, or words after the answer ended, do not."""
    barge = speaking()
    barge.speech_started(1.0)
    barge.speech_stopped(3.0)
    assert read_audio(barge, 3.0, 3.6)[-1:] == [ResumeBot("")]
    said = "actually can we make it seven instead"
    assert barge.words(said, 3.9, final=True) == [Interrupt(said)]
    assert barge.interrupted == 1 and barge.resumed == 0
    assert barge.speech_started(5.0) == [StartTurn()]  # the bot is silent: an ordinary turn
    for late, then in (("yeah", []), (said, [])):
        other = speaking()
        other.speech_started(1.0)
        other.speech_stopped(1.5)
        assert read_audio(other, 1.5, 2.1)[-1:] == [ResumeBot("")]
        if late == said:
            other.bot_stopped(2.5)  # the answer ended before the words came: no answer to cut
        assert other.words(late, 2.8, final=True) == then
        assert other.resumed == 1 and other.interrupted == 0


def test_after_an_interruption_the_bot_is_silent_so_the_next_speech_is_a_turn() -> None:
    """Interrupt ends the bot's turn: further speech starts an ordinary turn, not a pause."""
    barge = speaking()
    barge.speech_started(1.0)
    assert barge.words("no thanks", 1.4, final=True) == [Interrupt("no thanks")]
    assert barge.speech_started(3.0) == [StartTurn()]


def test_words_written_at_a_pause_preview_the_final_and_decide_nothing() -> None:
    """An interim with confidence (whisper's words at a pause) never interrupts, however long the
    speech: an interruption decided on it would flush the final queued behind it. The final, a
    moment later, decides."""
    barge = speaking()
    barge.speech_started(1.0)
    heard = Heard.of([("what", 0.9), ("are", 0.9), ("your", 0.9), ("opening", 0.9), ("hours", 0.9)])
    assert barge.words("what are your opening hours", 2.2, final=False, heard=heard) == []
    assert barge.words("what are your opening hours", 2.3, final=True, heard=heard) == [
        Interrupt("what are your opening hours")
    ]


def test_a_fluent_guess_for_a_short_sound_is_no_sentence() -> None:
    """Three words or more that a fluent recognizer (whisper) does not trust, over speech as short
    as a backchannel ("that's what I'm doing" for the "sure" of "Okay, sure."), are resumed over
    like one; trusted, they interrupt."""
    words = [("that's", 0.1), ("what", 0.2), ("i'm", 0.3), ("doing", 0.2)]
    guess = Heard.of(words, duration_s=0.5, fluent=True)
    barge = speaking()
    barge.speech_started(1.0)
    assert barge.words("that's what i'm doing", 1.5, final=True, heard=guess) == []
    barge.speech_stopped(1.52)
    assert read_audio(barge, 1.52, 1.82)[-1:] == [ResumeBot("that's what i'm doing")]
    sure = Heard.of([(w, 0.9) for w, _ in words], duration_s=0.5, fluent=True)
    trusted = speaking()
    trusted.speech_started(1.0)
    assert trusted.words("that's what i'm doing", 1.5, final=True, heard=sure) == [
        Interrupt("that's what i'm doing")
    ]


def test_a_backchannel_written_at_the_first_pause_is_talked_through_at_once() -> None:
    """Whisper's words at the caller's first pause ("uh huh", trusted or not) duck the answer
    back in before the VAD's stop; the final then only confirms it, and the full level comes back
    once the caller has stayed quiet. Words that are not a backchannel's ("actually"; "the hand"
    for a misheard "mm hmm") do not: the bot stays silent until the verdict."""
    heard = Heard.of([("uh", 0.4), ("huh", 0.3)], duration_s=0.4, fluent=True)
    barge = speaking()
    barge.speech_started(1.0)
    assert barge.words("uh huh", 1.3, final=False, heard=heard) == [DuckBot()]
    assert barge.speech_stopped(1.45) == []
    assert barge.words("uh huh", 1.46, final=True, heard=heard) == []  # ducked already
    assert read_audio(barge, 1.45, 1.75)[-1:] == [ResumeBot("uh huh")]
    for words in ("actually", "the hand", "wait"):
        other = speaking()
        other.speech_started(1.0)
        said = Heard.of([(w, 0.9) for w in words.split()], duration_s=0.4, fluent=True)
        assert other.words(words, 1.3, final=False, heard=said) == []
        assert not other.ducked
    guessed = speaking()  # "lehma" for a "Mm hmm.": a word whisper does not trust, no stop word
    guessed.speech_started(1.0)
    lehma = Heard.of([("lehma", 0.01)], duration_s=0.4, fluent=True)
    assert guessed.words("lehma", 1.3, final=False, heard=lehma) == [DuckBot()]
    stop = speaking()  # but never over a stop word, trusted or not
    stop.speech_started(1.0)
    assert stop.words("wait", 1.3, final=False, heard=Heard.of([("wait", 0.2)], fluent=True)) == []


def test_a_caller_who_goes_on_after_a_backchannels_words_pauses_the_answer_again() -> None:
    """ "Okay, ... sure" or "Yeah, but ...": the answer ducked at "okay" pauses again the moment
    the caller's level (or the VAD) hears them go on, once per stretch; a turn's words then
    interrupt it, a second backchannel ducks it again."""
    barge = speaking()
    barge.speech_started(1.0)
    assert barge.words("okay", 1.4, final=False, heard=Heard.of([("okay", 0.9)])) == [DuckBot()]
    assert barge.speech_resumed(1.5) == [PauseBot()]
    assert barge.speech_resumed(1.52) == []  # paused already
    assert barge.words("okay sure", 1.9, final=False, heard=Heard.of([("okay", 0.9), ("sure", 0.9)])) == [
        DuckBot()
    ]
    barge.speech_stopped(2.0)
    assert barge.speech_started(2.1) == [PauseBot()]  # the VAD hears them again
    assert barge.words("okay sure but how much is it", 3.0, final=True) == [
        Interrupt("okay sure but how much is it")
    ]
    assert not barge.paused and not barge.ducked


def test_speech_longer_than_a_backchannel_is_not_ducked_over_whatever_its_words() -> None:
    """Over ``backchannel_max_s`` of speech, "yeah yeah" is no longer talked through: it waits for
    the verdict, silent."""
    barge = speaking()
    barge.speech_started(1.0)
    assert barge.words("yeah yeah", 2.2, final=False, heard=Heard.of([("yeah", 0.9), ("yeah", 0.9)])) == []
    assert not barge.ducked


# -- peeks: the words so far of speech that goes on over the bot --------------------------------


def peeked(*words: tuple[str, float]) -> Heard:
    return Heard.of(words, duration_s=0.35, fluent=True)


@pytest.mark.parametrize(
    "words",
    [
        (),  # a hum whisper writes nothing for ("Mm hmm.", "Mhm.")
        (("yeah", 0.7),),
        (("i", 0.7),),  # the start of "I see."
        (("got", 0.3), ("it", 0.9)),
        (("uhhuh", 0.12),),
        (("thank", 0.05), ("you", 0.97)),  # "Gotcha." guessed, its first word below 0.15
        (("come", 0.08),),  # "Hmm." guessed
        (("sound", 0.6),),  # "Sounds good." read before its "s": a backchannel's word cut short
        (("oh", 0.8), ("exact", 0.7)),  # "Oh, exactly."
    ],
    ids=lambda words: " ".join(w for w, _ in words) or "nothing",
)
def test_a_peek_that_opens_no_turn_talks_the_speech_through_at_once(
    words: tuple[tuple[str, float], ...],
) -> None:
    barge = speaking()
    barge.speech_started(1.0)
    heard = peeked(*words)
    assert barge.peek(heard.text, 1.35, heard) == [DuckBot()]
    assert barge.ducked and barge.paused


@pytest.mark.parametrize(
    "words",
    [
        (("sorry", 0.8),),  # a stop word
        (("wait", 0.3),),  # a stop word at half the trust
        (("i", 0.7), ("would", 0.95)),  # a trusted word no backchannel has
        (("actually", 0.25),),  # a first word that opens no backchannel, above first_word_trust
        (("wendy", 0.69),),  # "When do" misheard, but heard as a word
        (("sound", 0.6), ("like", 0.6)),  # only the last word may be cut short
        (("yo", 0.6),),  # two letters begin too many words to count ("you")
    ],
    ids=lambda words: " ".join(w for w, _ in words),
)
def test_a_peek_that_opens_a_turn_keeps_the_bot_paused(words: tuple[tuple[str, float], ...]) -> None:
    barge = speaking()
    barge.speech_started(1.0)
    heard = peeked(*words)
    assert barge.peek(heard.text, 1.35, heard) == []
    assert barge.paused and not barge.ducked


def test_a_ducked_answer_pauses_again_when_a_later_peek_finds_a_turn() -> None:
    """ "Yeah, can you also ...": "yeah" ducks; "yeah can you" pauses again, and the final
    transcript interrupts."""
    barge = speaking()
    barge.speech_started(1.0)
    assert barge.peek("yeah", 1.35, peeked(("yeah", 0.8))) == [DuckBot()]
    assert barge.peek("yeah can you", 1.5, peeked(("yeah", 0.8), ("can", 0.6), ("you", 0.9))) == [PauseBot()]
    assert barge.peek("yeah can you also", 1.65, peeked(("yeah", 0.8), ("can", 0.6), ("also", 0.9))) == []
    assert barge.words("yeah can you also add a dessert", 2.5, final=True) == [
        Interrupt("yeah can you also add a dessert")
    ]


def test_with_peeks_the_caller_going_on_leaves_the_answer_ducked_until_a_peek_decides() -> None:
    """ "Okay, ... sure": the level hearing the caller again does not pause an answer that peeks
    follow (without peeks it does: the test above); the backchannel's final keeps it ducked, and
    the answer is back at full level once the caller stays quiet."""
    barge = speaking()
    barge.speech_started(1.0)
    assert barge.peek("okay", 1.35, peeked(("okay", 0.6))) == [DuckBot()]
    assert barge.speech_resumed(1.6) == []
    assert barge.peek("okay sure", 1.75, peeked(("okay", 0.6), ("sure", 0.5))) == []
    assert barge.ducked
    assert barge.words("okay sure", 1.95, final=True, heard=peeked(("okay", 0.6), ("sure", 0.5))) == []
    barge.speech_stopped(1.95)
    assert read_audio(barge, 1.95, 2.25)[-1:] == [ResumeBot("okay sure")]


def test_a_ducked_answer_pauses_once_the_speech_outlasts_a_backchannel() -> None:
    """A hum that goes on, and words never read: past ``backchannel_max_s`` (1 s from the VAD's
    start) the ducked answer pauses; speech whose words so far are all a backchannel's does not."""
    barge = speaking()
    barge.speech_started(1.0)
    assert barge.peek("", 1.35, peeked()) == [DuckBot()]
    assert barge.next_deadline_s() == pytest.approx(2.0)
    assert barge.tick(1.99) == []
    assert barge.tick(2.0) == [PauseBot()]
    assert barge.paused and not barge.ducked
    yeah = speaking()
    yeah.speech_started(1.0)
    yeah.peek("yeah yeah", 1.35, peeked(("yeah", 0.8), ("yeah", 0.8)))
    assert yeah.next_deadline_s() == pytest.approx(4.0)  # only the pause's own bound
    assert yeah.tick(2.0) == [] and yeah.ducked


def test_a_peek_after_the_verdict_or_with_the_bot_silent_does_nothing() -> None:
    barge = speaking()
    assert barge.peek("", 1.0, peeked()) == []
    barge.speech_started(1.0)
    barge.words("when do you close", 1.6, final=True)
    assert barge.peek("when do you", 1.65, peeked(("when", 0.9))) == []


def test_once_a_peek_finds_a_turn_nothing_ducks_the_answer_before_the_verdict() -> None:
    """ "Actually, ... can we": the peek reads "actually" as a turn; the words whisper writes at
    the comma's pause ("actually" at 0.1, which alone would duck as a guess) and a later peek that
    reads nothing keep the bot paused: no answer flapping between quiet and silent."""
    barge = speaking()
    barge.speech_started(1.0)
    assert barge.peek("actually", 1.3, peeked(("actually", 0.3))) == []
    assert barge.words("actually", 1.7, final=False, heard=peeked(("actually", 0.1))) == []
    assert barge.peek("", 1.85, peeked()) == []
    assert not barge.ducked and barge.paused
    assert barge.words("actually can we make it seven", 2.6, final=True) == [
        Interrupt("actually can we make it seven")
    ]
