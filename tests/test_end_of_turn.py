"""The caller's turn end with a held speculative answer, on a fake clock with scripted events."""

from __future__ import annotations

from agent.turn_taking.confidence import Heard
from agent.turn_taking.end_of_turn import (
    EARLY_SLACK_S,
    RESUME_HOLD_BOUND_S,
    RESUME_HOLD_S,
    Answer,
    Cancel,
    Confirm,
    EndOfTurn,
    EndOfTurnAction,
    Speculate,
)
from agent.turn_taking.policy import TurnEndPolicy

POLICY = TurnEndPolicy()


def run_until(turn: EndOfTurn, now: float, until: float) -> tuple[float, list[EndOfTurnAction]]:
    """Call tick at every deadline up to ``until``; the time and the actions, in order."""
    acts: list[EndOfTurnAction] = []
    while (due := turn.next_deadline_s()) is not None and due <= until:
        now = max(now, due)
        acts += turn.tick(now)
    return now, acts


FRAME_S = 0.02  # a phone line's input frame


def read_audio(turn: EndOfTurn, at: list[float]) -> list[EndOfTurnAction]:
    """One 20 ms input frame read at each of the times ``at``; the actions, in order."""
    return [act for now in at for act in turn.audio_read(FRAME_S, now)]


def test_a_complete_question_is_speculated_at_the_first_pause_and_confirmed_after_a_human_gap() -> None:
    """VAD stop -> Speculate at once; Smart Turn says complete -> Confirm at the complete gap; one request."""
    turn = EndOfTurn(POLICY)
    turn.opened(0.0)
    assert turn.transcript("what time do you open", 1.0) == []
    assert turn.speech_stopped(1.1, silence_began_s=1.0) == [Speculate("what time do you open")]
    assert turn.smart_turn(0.97, 1.2) == []
    now, acts = run_until(turn, 1.2, 5.0)
    assert acts == [Confirm("what time do you open")]
    assert now == 1.0 + POLICY.complete_gap_s
    assert turn.speculations == 1 and turn.last_reason == "complete"


def test_a_hesitation_after_an_unfinished_phrase_releases_nothing_and_the_real_answer_reads_it_all() -> None:
    """A 0.8 s pause after "a table for" confirms nothing; one answer reads both halves."""
    turn = EndOfTurn(POLICY)
    turn.opened(0.0)
    turn.transcript("i would like to book a table for", 2.0)
    acts = turn.speech_stopped(2.1, silence_began_s=2.0)
    acts += turn.smart_turn(0.98, 2.2)  # synthesized speech: the audio model says "complete"
    _, later = run_until(turn, 2.2, 2.8)  # the caller hesitates 0.8 s
    assert acts + later == []
    assert turn.speech_started(2.8) == []  # nothing was speculated, nothing to cancel
    turn.transcript("two people at eight", 3.6)
    assert turn.speech_stopped(3.7, silence_began_s=3.6) == [
        Speculate("i would like to book a table for two people at eight")
    ]
    turn.smart_turn(0.95, 3.8)
    _, acts = run_until(turn, 3.8, 9.0)
    assert acts == [Confirm("i would like to book a table for two people at eight")]


def test_speech_that_resumes_cancels_the_speculation_and_the_next_pause_speculates_again() -> None:
    """A complete-looking pause, then more words: Cancel; the final turn end answers all the words."""
    turn = EndOfTurn(POLICY)
    turn.opened(0.0)
    turn.transcript("i need a table", 1.0)
    assert turn.speech_stopped(1.05, silence_began_s=1.0) == [Speculate("i need a table")]
    assert turn.speech_started(1.2) == [Cancel()]
    turn.transcript("for tomorrow night", 2.0)
    acts = turn.speech_stopped(2.05, silence_began_s=2.0)
    assert acts == [Speculate("i need a table for tomorrow night")]
    turn.smart_turn(0.9, 2.1)
    _, acts = run_until(turn, 2.1, 9.0)
    assert acts == [Confirm("i need a table for tomorrow night")] and turn.speculations == 2


def test_an_unfinished_phrase_is_answered_anyway_at_the_bound() -> None:
    """Nobody goes on after "for": the answer comes at the bound, speculated just before it."""
    turn = EndOfTurn(POLICY)
    turn.opened(0.0)
    turn.transcript("can i book a table for", 1.0)
    turn.speech_stopped(1.1, silence_began_s=1.0)
    now, acts = run_until(turn, 1.1, 9.0)
    assert acts == [Speculate("can i book a table for"), Confirm("can i book a table for")]
    assert now == 1.0 + POLICY.unfinished_gap_s


def test_when_the_audio_model_is_unsure_the_bot_waits_longer() -> None:
    """Complete words but p < threshold: the answer waits out a hesitation."""
    turn = EndOfTurn(POLICY)
    turn.opened(0.0)
    turn.transcript("and then we saw it", 1.0)
    turn.speech_stopped(1.1, silence_began_s=1.0)
    turn.smart_turn(0.2, 1.2)
    now, acts = run_until(turn, 1.2, 9.0)
    assert acts == [Confirm("and then we saw it")] and now == 1.0 + POLICY.hesitation_gap_s
    assert turn.last_reason == "hesitant"


def test_a_failed_speculation_is_never_confirmed_the_turn_end_answers_afresh() -> None:
    """The LLM failed during speculation: at the gap, Cancel then a fresh Answer."""
    turn = EndOfTurn(POLICY)
    turn.opened(0.0)
    turn.transcript("what time do you open", 1.0)
    turn.speech_stopped(1.05, silence_began_s=1.0)
    turn.smart_turn(0.97, 1.1)
    assert turn.speculation_failed(1.15) == []
    _, acts = run_until(turn, 1.15, 9.0)
    assert acts == [Cancel(), Answer("what time do you open")]


def test_words_that_change_after_the_speculation_cancel_it() -> None:
    """A late final transcript for the same pause: the answer was for other words, so it goes."""
    turn = EndOfTurn(POLICY)
    turn.opened(0.0)
    turn.transcript("book a table", 1.0)
    turn.speech_stopped(1.05, silence_began_s=1.0)
    assert turn.transcript("please", 1.08) == [Cancel(), Speculate("book a table please")]


def test_without_speculation_the_turn_end_answers_directly_and_a_closed_turn_acts_no_more() -> None:
    """speculate=False: one Answer at the gap; after closed() nothing is pending."""
    turn = EndOfTurn(POLICY, speculate=False)
    turn.opened(0.0)
    turn.transcript("hello there", 1.0)
    turn.speech_stopped(1.05, silence_began_s=1.0)
    turn.smart_turn(0.9, 1.1)
    _, acts = run_until(turn, 1.1, 9.0)
    assert acts == [Answer("hello there")]
    turn.opened(10.0)
    turn.transcript("one more", 11.0)
    turn.speech_stopped(11.05, silence_began_s=11.0)
    turn.closed()
    assert turn.next_deadline_s() is None and turn.tick(20.0) == []


def test_the_first_quiet_speculates_from_the_running_hypothesis_and_the_gap_counts_from_it() -> None:
    """The level drops 60 ms after the words end: Speculate on the interim at once; the VAD's
    later stop and the same final words keep it; Confirm comes a complete gap after the quiet."""
    turn = EndOfTurn(POLICY)
    turn.opened(0.0)
    turn.interim("what time do you open")
    assert turn.pause_began(1.06, silence_began_s=1.0) == [Speculate("what time do you open")]
    assert turn.smart_turn(0.95, 1.15) == []  # scored at the first quiet; it stands at the VAD stop
    assert turn.transcript("what time do you open", 1.16) == []
    assert turn.speech_stopped(1.17, silence_began_s=1.02) == []
    now, acts = run_until(turn, 1.17, 5.0)
    assert acts == [Confirm("what time do you open")] and now == 1.0 + POLICY.complete_gap_s
    assert turn.speculations == 1


def test_a_quiet_that_ends_in_more_words_takes_the_speculation_back() -> None:
    """Quiet between words, then the caller goes on before the VAD stops: Cancel; a fragment too
    short to be a turn ("when") is never speculated on."""
    turn = EndOfTurn(POLICY)
    turn.opened(0.0)
    turn.interim("when")
    assert turn.pause_began(0.5, silence_began_s=0.44) == []  # one word: too often a fragment
    assert turn.speech_resumed(0.6) == []
    turn.interim("i need a table")
    assert turn.pause_began(1.06, silence_began_s=1.0) == [Speculate("i need a table")]
    assert turn.speech_resumed(1.15) == [Cancel()]
    turn.transcript("i need a table and", 2.0)
    acts = turn.speech_stopped(2.15, silence_began_s=2.0)
    assert acts == []  # "and": unfinished, the speculation waits for the bound's lead
    assert turn.speculations == 1


def test_the_interim_that_differs_from_the_final_words_is_replaced() -> None:
    """Speculated on "what time do you", the final is "what time do you open": Cancel, Speculate."""
    turn = EndOfTurn(POLICY)
    turn.opened(0.0)
    turn.interim("what time do you")
    assert turn.pause_began(1.06, silence_began_s=1.0) == [Speculate("what time do you")]
    assert turn.transcript("what time do you open", 1.16) == [Cancel()]
    assert turn.speech_stopped(1.17, silence_began_s=1.02) == [Speculate("what time do you open")]


def test_a_vad_start_far_after_the_level_quiet_means_the_level_missed_speech() -> None:
    """The level's quiet began more than EARLY_SLACK_S before the VAD's: the VAD's start holds."""
    turn = EndOfTurn(POLICY)
    turn.opened(0.0)
    turn.interim("a table for two")
    turn.pause_began(1.06, silence_began_s=1.0)
    turn.smart_turn(0.9, 1.1)
    turn.transcript("a table for two", 1.6)
    turn.speech_stopped(1.65, silence_began_s=1.0 + EARLY_SLACK_S + 0.25)
    now, acts = run_until(turn, 1.65, 5.0)
    assert acts == [Confirm("a table for two")]
    assert now == 1.0 + EARLY_SLACK_S + 0.25 + POLICY.complete_gap_s


def test_a_barge_in_confirmed_by_its_final_words_after_the_vad_stop_is_answered() -> None:
    """Over the bot, the turn is closed: the pause is recorded all the same; the final transcript
    opens the turn (an interruption) and then reaches the turn end, which answers after its gap."""
    turn = EndOfTurn(POLICY)
    turn.speech_started(1.0)
    assert turn.pause_began(1.7, silence_began_s=1.64) == []  # no turn is open: nothing to answer
    assert turn.smart_turn(0.98, 1.75) == []
    assert turn.speech_stopped(1.8, silence_began_s=1.65) == []
    turn.opened(1.81)  # the final "when do you close" confirmed the interruption
    assert turn.transcript("when do you close", 1.81) == [Speculate("when do you close")]
    now, acts = run_until(turn, 1.81, 9.0)
    assert acts == [Confirm("when do you close")] and now == 1.64 + POLICY.complete_gap_s


def test_a_barge_in_that_pauses_after_its_first_word_is_not_answered_in_that_pause() -> None:
    """Over the bot: "Wait, [0.3 s] stop please", the first word misheard as "when". The short
    turn waits the unsure gap, so the caller's second stretch arrives in time; the turn after it
    (not over the bot) takes a human gap again."""
    turn = EndOfTurn(POLICY)
    turn.over_the_bot()
    turn.opened(1.0)
    turn.transcript("when", 1.3)
    turn.speech_stopped(1.45, silence_began_s=1.3)
    turn.smart_turn(0.97, 1.5)
    now, acts = run_until(turn, 1.5, 1.3 + 0.3)
    assert [a for a in acts if isinstance(a, Answer | Confirm)] == []  # not answered in the pause
    turn.speech_started(1.6)
    turn.transcript("stop please", 2.1)
    turn.speech_stopped(2.25, silence_began_s=2.1)
    turn.smart_turn(0.95, 2.3)
    now, acts = run_until(turn, 2.3, 9.0)
    assert acts[-1] in (Answer("when stop please"), Confirm("when stop please"))
    assert now == 2.1 + POLICY.complete_gap_s  # three words now: a human gap
    turn.opened(5.0)
    turn.transcript("two", 5.3)
    turn.speech_stopped(5.45, silence_began_s=5.3)
    turn.smart_turn(0.97, 5.5)
    now, acts = run_until(turn, 5.5, 9.0)
    assert acts[-1] in (Answer("two"), Confirm("two")) and now == 5.3 + POLICY.complete_gap_s


def test_a_caller_who_resumes_just_before_the_bound_is_not_answered_in_their_first_syllable() -> None:
    """A 1.3 s hesitation: the level hears the caller again at 2.35 s, the VAD confirms them 160 ms
    later, after the unfinished bound (2.4 s). The turn end waits for the VAD, and the turn goes on."""
    turn = EndOfTurn(POLICY)
    turn.opened(0.0)
    turn.transcript("i would like a table for", 0.95)
    turn.speech_stopped(1.15, silence_began_s=1.0)
    assert turn.awaiting_end
    assert 1.0 + POLICY.unfinished_gap_s == 2.4
    assert turn.speech_resumed(2.35) == [] and turn.holding
    assert turn.next_deadline_s() == 2.35 + RESUME_HOLD_BOUND_S
    assert read_audio(turn, [2.37 + i * FRAME_S for i in range(8)]) == []
    assert turn.speech_started(2.51) == []
    assert not turn.awaiting_end and not turn.holding
    turn.transcript("two people", 3.0)
    assert turn.speech_stopped(3.1, silence_began_s=3.0) == [Speculate("i would like a table for two people")]
    turn.smart_turn(0.97, 3.15)
    _, acts = run_until(turn, 3.15, 5.0)
    assert acts == [Confirm("i would like a table for two people")]


def test_on_a_loaded_machine_the_hold_counts_audio_not_the_clock() -> None:
    """The audio after the resumption comes late and in a burst (a loaded machine): the VAD's start
    comes 415 ms after the level's resumption by the clock, but after 160 ms of audio, within the
    hold; a clock's hold of RESUME_HOLD_S had answered the caller in their first syllable."""
    turn = EndOfTurn(POLICY)
    turn.opened(0.0)
    turn.transcript("i would like a table for", 0.95)
    turn.speech_stopped(1.15, silence_began_s=1.0)
    turn.speech_resumed(2.35)
    assert turn.tick(2.35 + RESUME_HOLD_S) == []  # no audio read since: the hold stands
    assert read_audio(turn, [2.70 + i * 0.002 for i in range(8)]) == []  # the burst
    assert turn.speech_started(2.765) == []
    assert not turn.awaiting_end


def test_a_click_in_the_pause_holds_the_turn_end_only_until_the_vad_says_it_was_no_speech() -> None:
    """The level rose (a click) but the VAD heard no speech in RESUME_HOLD_S of audio after it: the
    answer comes then."""
    turn = EndOfTurn(POLICY)
    turn.opened(0.0)
    turn.transcript("i would like a table for", 0.95)
    turn.speech_stopped(1.15, silence_began_s=1.0)
    turn.speech_resumed(2.3)  # just before the bound (2.4 s)
    frames = round(RESUME_HOLD_S / FRAME_S)
    assert read_audio(turn, [2.3 + (i + 1) * FRAME_S for i in range(frames - 1)]) == []
    assert turn.holding
    assert turn.audio_read(FRAME_S, 2.3 + RESUME_HOLD_S) == [Answer("i would like a table for")]
    assert not turn.holding


def test_audio_that_stops_coming_holds_the_turn_end_only_until_the_clocks_bound() -> None:
    """No audio after the resumption (the line stalled): the answer comes RESUME_HOLD_BOUND_S later."""
    turn = EndOfTurn(POLICY)
    turn.opened(0.0)
    turn.transcript("i would like a table for", 0.95)
    turn.speech_stopped(1.15, silence_began_s=1.0)
    turn.speech_resumed(2.3)
    now, acts = run_until(turn, 2.3, 5.0)
    assert acts == [Answer("i would like a table for")]
    assert now == 2.3 + RESUME_HOLD_BOUND_S


WORDS_AT_PAUSE = Heard.of([("what", 0.9), ("time", 0.9), ("do", 0.9), ("you", 0.9), ("open", 0.9)])


def test_words_written_at_the_pause_start_the_speculation_when_they_come() -> None:
    """A recognizer that writes its words only at a pause (whisper) sends them some 80 ms after the
    level's quiet: the speculation starts then, the final words confirm it, one request."""
    turn = EndOfTurn(POLICY)
    turn.opened(0.0)
    assert turn.pause_began(1.06, silence_began_s=1.0) == []  # no words yet
    assert turn.interim("what time do you open", 1.14, WORDS_AT_PAUSE) == [Speculate("what time do you open")]
    assert turn.transcript("what time do you open", 1.2, WORDS_AT_PAUSE) == []
    turn.smart_turn(0.97, 1.21)
    assert turn.speech_stopped(1.22, silence_began_s=1.05) == []
    now, acts = run_until(turn, 1.22, 5.0)
    assert acts == [Confirm("what time do you open")] and now == 1.0 + POLICY.complete_gap_s
    assert turn.speculations == 1


def test_words_at_the_pause_that_read_unfinished_drop_a_speculation_and_end_with_the_pause() -> None:
    """Words at the pause replace a speculation on other words; words that read unfinished (the
    recognizer's own odds, here) speculate nothing; when the caller goes on, they are forgotten,
    and a running hypothesis without confidence never starts a speculation in the pause."""
    turn = EndOfTurn(POLICY)
    turn.opened(0.0)
    turn.interim("we are looking")  # a streaming recognizer's hypothesis
    assert turn.pause_began(1.06, silence_began_s=1.0) == [Speculate("we are looking")]
    looking_for = Heard.of([("we", 0.9), ("are", 0.9), ("looking", 0.9), ("four", 0.5)], unfinished=0.45)
    assert turn.interim("we are looking four", 1.14, looking_for) == [Cancel()]
    assert turn.speech_resumed(1.9) == []
    assert turn.heard_so_far == ""  # the pause's words end at the pause
    turn.interim("we are looking for something", 2.2)  # no confidence: no action in a pause
    assert turn.pause_began(2.56, silence_began_s=2.5) == [Speculate("we are looking for something")]
    assert turn.interim("we are looking for something quiet", 2.6) == []


def words_then_speech(words: str, said_s: float, again_s: float) -> EndOfTurn:
    """A turn whose caller said ``words`` (their transcript at ``said_s``), then spoke again at
    ``again_s``: the VAD heard speech no transcript has come for yet."""
    turn = EndOfTurn(POLICY)
    turn.opened(0.0)
    turn.speech_started(0.0)
    turn.transcript(words, said_s)
    turn.speech_started(again_s)
    return turn


def test_speech_with_no_words_after_the_last_transcript_holds_the_turn_to_the_bound() -> None:
    """The VAD split "Is there a place | where" and the recognizer found no word in "where": the
    turn's words stop before the caller did, so the pause is not answered as "complete"; the
    caller's next words end it as usual."""
    turn = words_then_speech("is there a place", 1.1, 1.2)  # "where": no transcript comes for it
    turn.speech_stopped(1.55, silence_began_s=1.45)
    turn.smart_turn(0.98, 1.6)
    _, acts = run_until(turn, 1.6, 1.45 + POLICY.unfinished_gap_s - 0.01)
    assert not any(isinstance(a, Confirm | Answer) for a in acts)  # 0.9 s of hesitation: no answer
    assert turn.speculating == "is there a place"  # held just before the bound, never released
    assert turn.speech_started(2.35) == [Cancel()]
    turn.transcript("we can park a large van", 3.6)
    turn.speech_stopped(3.65, silence_began_s=3.55)
    turn.smart_turn(0.97, 3.7)
    now, acts = run_until(turn, 3.7, 9.0)
    assert acts[-1] == Confirm("is there a place we can park a large van")
    assert now == 3.55 + POLICY.complete_gap_s and turn.last_reason == "complete"


def test_a_stretch_left_unread_is_answered_at_the_bound_and_says_why() -> None:
    """Nothing follows the unread stretch: the bot answers the words it has at the bound."""
    turn = words_then_speech("i would like a table", 1.0, 1.3)  # a cough, say
    turn.speech_stopped(1.6, silence_began_s=1.5)
    turn.smart_turn(0.99, 1.7)
    now, acts = run_until(turn, 1.7, 9.0)
    assert acts[-1] == Confirm("i would like a table")
    assert now == 1.5 + POLICY.unfinished_gap_s and turn.last_reason == "unread"


def test_words_that_come_after_the_vads_stop_are_waited_for_and_answered_whole() -> None:
    """An STT whose final transcript follows the VAD's stop: the turn does not end on the words
    before it, and ends at the usual gap once they come."""
    turn = words_then_speech("hello", 0.6, 0.8)
    turn.speech_stopped(2.0, silence_began_s=1.9)
    turn.smart_turn(0.97, 2.05)
    _, acts = run_until(turn, 2.05, 2.3)
    assert not any(isinstance(a, Confirm | Answer) for a in acts)
    acts = turn.transcript("what time do you open", 2.3)  # 0.4 s into the silence: past the gap
    assert acts == [Answer("hello what time do you open")] and turn.last_reason == "complete"


def test_a_barge_ins_first_words_before_the_turn_opened_begin_it() -> None:
    """Over the bot: "Actually, [pause] can we make it seven" is confirmed only by its second
    stretch. The first stretch's words came with no turn open; the turn begins with them, so the
    answer is for every word the context's user message holds."""
    turn = EndOfTurn(POLICY)
    turn.speech_started(1.0)
    turn.speech_stopped(1.6, silence_began_s=1.45)
    assert turn.transcript("actually", 1.7) == []  # no turn is open yet
    turn.speech_started(1.8)
    turn.over_the_bot()
    turn.opened(3.1)  # "can we make it seven" confirmed the interruption
    assert turn.transcript("can we make it seven", 3.1) == []
    assert turn.speech_stopped(3.2, silence_began_s=3.0) == [Speculate("actually can we make it seven")]
    acts = turn.smart_turn(0.97, 3.3)
    _, later = run_until(turn, 3.3, 9.0)
    assert acts + later == [Confirm("actually can we make it seven")]


def test_words_dropped_outside_a_turn_do_not_begin_the_next() -> None:
    """A backchannel the bot talked through ("yeah", dropped) is not part of the next turn; words
    heard after a turn ended begin the next one only until they are dropped."""
    turn = EndOfTurn(POLICY)
    turn.speech_started(1.0)
    turn.speech_stopped(1.4, silence_began_s=1.3)
    turn.transcript("yeah", 1.5)
    turn.dropped()
    turn.speech_started(4.0)
    turn.opened(4.0)
    turn.transcript("when do you close", 5.0)
    assert turn.speech_stopped(5.1, silence_began_s=5.0) == [Speculate("when do you close")]
    assert turn.text == "when do you close"
