"""The turn-end cues and policy: the words overrule the audio; every wait is bounded."""

from __future__ import annotations

import pytest

from agent.turn_taking.confidence import Heard
from agent.turn_taking.cues import backchannel, interrupts, unfinished
from agent.turn_taking.policy import TurnEndPolicy


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I would like to book a table for", True),
        ("Can I get a table and", True),
        ("We are looking for the", True),
        ("My name is", True),
        ("I would like um", True),
        ("Is it possible to", True),
        ("What do I need to", True),
        ("I was wondering if you could", True),
        ("What time do you open?", False),
        ("What is the weather like?", False),  # a wh-question strands its preposition
        ("Who am I speaking to?", False),
        ("Yes, I do.", False),  # a short reply ends on its auxiliary
        ("Could you tell me where you are?", False),  # so does a question inside a sentence
        ("Do you know what time it is?", False),
        ("I was wondering if you are", True),
        ("I think so.", False),
        ("No.", False),  # an answer word, not a determiner
        ("I'll take that.", False),
        ("Do you have any?", False),
        ("Can I drop by?", False),
        ("I would like to book a table for two.", False),
        ("Yes", False),
        ("", False),
    ],
)
def test_a_phrase_that_ends_on_a_function_word_is_unfinished(text: str, expected: bool) -> None:
    """Prepositions, conjunctions, articles, auxiliaries and fillers cannot end a sentence."""
    assert unfinished(text) is expected


def test_backchannels_keep_the_bot_talking_and_stop_words_never_do() -> None:
    """ "yeah", "uh huh, okay" are backchannels; "wait", "no" and any other words interrupt."""
    assert backchannel("yeah") and backchannel("Uh huh, okay.") and backchannel("mm hmm")
    assert not backchannel("yeah but") and not backchannel("")
    assert not interrupts("yeah") and not interrupts("all right")
    assert interrupts("no") and interrupts("yeah wait") and interrupts("what about Tuesday")
    assert not interrupts("")


def test_the_words_overrule_the_audio_and_the_audio_only_ever_adds_wait() -> None:
    """Unfinished words wait the bound even at p=0.99; a low p waits out a hesitation (longer than
    while the model has not answered, shorter than the bound)."""
    p = TurnEndPolicy()
    assert p.verdict("I'd like a table for", 0.99) == (p.unfinished_gap_s, "unfinished")
    assert p.verdict("What time do you open", 0.97) == (p.complete_gap_s, "complete")
    assert p.verdict("I need a table", 0.2) == (p.hesitation_gap_s, "hesitant")
    assert p.verdict("I need a table", None) == (p.unsure_gap_s, "unsure")
    assert p.complete_gap_s < p.question_gap_s < p.unsure_gap_s < p.hesitation_gap_s < p.unfinished_gap_s
    assert p.hesitation_gap_s >= 1.0  # the callers' hesitations run 0.5-1.0 s
    with pytest.raises(ValueError, match="hesitation"):
        TurnEndPolicy(hesitation_gap_s=0.5)


def test_a_whole_question_the_audio_doubts_waits_less_than_an_unsure_statement() -> None:
    """ "What is the weather like" ends on a rising-free voice the model doubts; its words are a
    whole question, so the wait is the question gap, between the complete and the unsure ones."""
    p = TurnEndPolicy()
    for text in ("What is the weather like", "Is it sunny today", "Can I bring a dog"):
        assert p.verdict(text, 0.08) == (p.question_gap_s, "question"), text
        assert p.verdict(text, None) == (p.question_gap_s, "question"), text
        assert p.verdict(text, 0.9) == (p.complete_gap_s, "complete"), text
    assert p.verdict("Do you have a table near", 0.08)[1] == "unfinished"  # the words still rule


def test_a_speculation_starts_at_once_for_complete_words_and_just_before_the_bound_otherwise() -> None:
    """Complete-reading text speculates at the first pause; unfinished text shortly before the bound."""
    p = TurnEndPolicy()
    assert p.speculate_after_s("What time do you open") == 0.0
    assert p.speculate_after_s("a table for") == pytest.approx(p.unfinished_gap_s - p.speculate_lead_s)


def test_gaps_out_of_order_are_refused() -> None:
    """A policy whose gaps are not increasing is a configuration error."""
    with pytest.raises(ValueError):
        TurnEndPolicy(complete_gap_s=1.0, unsure_gap_s=0.5)


def test_a_turn_of_openers_only_waits_like_an_unsure_one() -> None:
    """Openers ("Wait," "Yes," "Well,") are followed by a comma's pause as often as by the end."""
    p = TurnEndPolicy()
    for text in ("Wait", "Yes", "Well", "Hello", "oh okay"):
        assert p.verdict(text, 0.99) == (p.unsure_gap_s, "unsure"), text
    assert p.verdict("Yes please, a table for two", 0.99)[1] == "complete"


def test_a_short_turn_that_talked_over_the_bot_waits_like_an_unsure_one() -> None:
    """ "Wait, stop please" pauses after "wait", which the recognizer may hear as "when": over
    the bot, fewer than three words wait the unsure gap whatever they read like."""
    p = TurnEndPolicy()
    for text in ("when", "stop", "hang on"):
        assert p.verdict(text, 0.97, after_barge_in=True) == (p.unsure_gap_s, "barge-in"), text
        assert p.verdict(text, 0.97)[1] == "complete", text
    assert p.verdict("when do you close", 0.97, after_barge_in=True)[1] == "complete"
    assert p.verdict("a table for", 0.97, after_barge_in=True)[1] == "unfinished"


GUESSED = Heard.of([("what", 0.3), ("kind", 0.2), ("you", 0.4), ("open", 0.1)], duration_s=1.2)
SURE = Heard.of([("what", 0.9), ("time", 0.8), ("do", 0.7), ("you", 0.9), ("open", 0.8)], duration_s=1.2)


def test_words_the_recognizer_does_not_trust_leave_the_decision_to_the_audio() -> None:
    """Untrusted words: Smart Turn's "complete" answers after the audio gap, its doubt waits the
    hesitation gap (before it answers, the unsure gap); a whole question read from guessed words
    shortens nothing. Trusted words, or
    none said (another STT's transcript), decide as the words always did."""
    policy = TurnEndPolicy()
    assert policy.verdict("what kind you open", 0.97, heard=GUESSED) == (policy.audio_gap_s, "audio")
    assert policy.verdict("what kind you open", 0.2, heard=GUESSED) == (policy.hesitation_gap_s, "hesitant")
    assert policy.verdict("what kind you open", None, heard=GUESSED) == (policy.unsure_gap_s, "unsure")
    assert policy.verdict("what time do you open", 0.2, heard=GUESSED)[1] == "hesitant"
    assert policy.verdict("what time do you open", 0.97, heard=SURE) == (policy.complete_gap_s, "complete")
    assert policy.verdict("what time do you open", 0.2, heard=SURE)[1] == "question"
    assert policy.verdict("what time do you open", 0.97) == (policy.complete_gap_s, "complete")
    assert policy.complete_gap_s < policy.audio_gap_s < policy.unsure_gap_s
    assert policy.speculate_after_s("what kind you open", GUESSED) == pytest.approx(
        policy.audio_gap_s - policy.speculate_lead_s
    )


def test_unfinished_words_wait_at_any_confidence_within_a_bound_above_every_hesitation() -> None:
    """A hesitation missed is a cut-in the caller hears; a false "unfinished" costs at most the
    bound, which sits above the longest hesitation of the tuned callers (1.16 s of silence) by
    the time the level takes to hear them resume."""
    policy = TurnEndPolicy()
    guessed_for = Heard.of([("a", 0.2), ("table", 0.3), ("for", 0.1)])
    assert policy.verdict("a table for", 0.99, heard=guessed_for) == (policy.unfinished_gap_s, "unfinished")
    assert 1.16 + 0.1 < policy.unfinished_gap_s <= 1.4  # the longest silence, and hearing it end
    with pytest.raises(ValueError, match="audio"):
        TurnEndPolicy(audio_gap_s=0.9)


def test_the_recognizers_own_odds_of_an_unfinished_ending_wait_like_unfinished_words() -> None:
    """Words that read complete but whose last word the recognizer gave good odds of being "for"
    (``Heard.unfinished``) wait the bound; low odds leave the words to decide."""
    policy = TurnEndPolicy()
    four = Heard.of([("a", 0.9), ("table", 0.9), ("four", 0.6)], unfinished=0.35)
    assert policy.verdict("a table four", 0.99, heard=four) == (policy.unfinished_gap_s, "unfinished")
    assert policy.speculate_after_s("a table four", four) == pytest.approx(
        policy.unfinished_gap_s - policy.speculate_lead_s
    )
    sure = Heard.of([("a", 0.9), ("table", 0.9), ("four", 0.9)], unfinished=0.05)
    assert policy.verdict("a table four", 0.99, heard=sure) == (policy.complete_gap_s, "complete")
    with pytest.raises(ValueError, match="probabilit"):
        TurnEndPolicy(unfinished_probability=1.5)


def test_a_pronoun_that_may_be_a_misheard_article_waits_on_smaller_odds() -> None:
    """A recognizer writes "near them" for "near the": a phrase that ends on such a word reads
    unfinished on the recognizer's odds of an article at ``article_soundalike_probability``;
    any other ending needs ``unfinished_probability``."""
    policy = TurnEndPolicy()
    them = Heard.of([("a", 0.9), ("table", 0.9), ("near", 0.9), ("them", 0.9)], unfinished=0.02)
    assert policy.verdict("a table near them", 0.99, heard=them) == (policy.unfinished_gap_s, "unfinished")
    heard_them = Heard.of([("please", 0.99), ("tell", 0.99), ("them", 0.99)], unfinished=0.0006)
    assert policy.verdict("please tell them", 0.99, heard=heard_them)[1] == "complete"
    window = Heard.of([("a", 0.9), ("table", 0.9), ("near", 0.9), ("windows", 0.9)], unfinished=0.02)
    assert policy.verdict("a table near windows", 0.99, heard=window)[1] == "complete"
    assert policy.verdict("a table near them", 0.99)[1] == "complete"  # no odds given: the words rule
    with pytest.raises(ValueError, match="exceed"):
        TurnEndPolicy(article_soundalike_probability=0.5)


def test_the_recognizers_score_that_the_utterance_goes_on_waits_whatever_the_words() -> None:
    """``Heard.ends`` under even odds: the decoder heard a sentence that goes on ("I would like to
    book a table" for "... a table but"), so the turn end waits the bound, and so does the
    speculation; at even odds or more, or with no score, the words and the audio decide."""
    policy = TurnEndPolicy()
    words = [("i", 0.9), ("would", 0.9), ("like", 0.9), ("a", 0.9), ("table", 0.9)]
    goes_on = Heard.of(words, ends=0.2)
    assert policy.verdict("i would like a table", 0.99, heard=goes_on) == (policy.unfinished_gap_s, "goes on")
    assert policy.speculate_after_s("i would like a table", goes_on) == pytest.approx(
        policy.unfinished_gap_s - policy.speculate_lead_s
    )
    for ends in (0.5, 0.97, None):
        heard = Heard.of(words, ends=ends)
        assert policy.verdict("i would like a table", 0.99, heard=heard) == (
            policy.complete_gap_s,
            "complete",
        )
    for_ = Heard.of([*words, ("for", 0.9)], ends=0.9)  # a fragment said with falling pitch
    assert policy.verdict("i would like a table for", 0.99, heard=for_)[1] == "unfinished"
    with pytest.raises(ValueError, match="probabilit"):
        TurnEndPolicy(ends_probability=2.0)


def test_voice_after_the_last_written_word_is_a_word_left_out() -> None:
    """``Heard.unheard_s``: the recognizer's last word ends well before the caller's voice does
    ("I have a friend" written for "... a friend who"): the phrase goes on whatever its words;
    alignment slack under ``dropped_word_s`` decides nothing."""
    policy = TurnEndPolicy()
    words = [("i", 0.9), ("would", 0.9), ("like", 0.9), ("a", 0.9), ("table", 0.9)]
    dropped = Heard.of(words, ends=0.9, unheard_s=0.38)
    assert policy.verdict("i would like a table", 0.99, heard=dropped) == (policy.unfinished_gap_s, "goes on")
    slack = Heard.of(words, ends=0.9, unheard_s=0.06)
    assert policy.verdict("i would like a table", 0.99, heard=slack)[1] == "complete"
    thanks = Heard.of([("thank", 0.9), ("you", 0.9)], ends=0.9, unheard_s=0.22)  # too few words to place
    assert policy.verdict("thank you", 0.99, heard=thanks)[1] == "complete"
    with pytest.raises(ValueError, match="dropped_word_s"):
        TurnEndPolicy(dropped_word_s=0.0)


def test_the_decoders_score_counts_only_where_it_heard_the_whole_turn() -> None:
    """The rest of a sentence said after a pause is transcribed alone and opens mid-sentence: its
    low score says nothing about the turn ("... about forty minutes" at 0.46); the words decide."""
    policy = TurnEndPolicy()
    rest = Heard.of([("about", 0.9), ("forty", 0.9), ("minutes", 0.9)], ends=0.46)
    turn = "my husband and i will be arriving in about forty minutes"
    assert policy.verdict(turn, 0.99, heard=rest) == (policy.complete_gap_s, "complete")
    assert policy.verdict("about forty minutes", 0.99, heard=rest)[1] == "goes on"


def test_speech_left_unread_after_the_words_waits_the_bound_in_any_language() -> None:
    """Voice after the last transcript that no words came for: the words stop before the caller did."""
    for p in (TurnEndPolicy(), TurnEndPolicy(words=False)):
        assert p.verdict("What time do you open", 0.99, unread=True) == (p.unfinished_gap_s, "unread")
        assert p.speculate_after_s("What time do you open", unread=True) == pytest.approx(
            p.unfinished_gap_s - p.speculate_lead_s
        )
        assert p.verdict("What time do you open", 0.99)[1] != "unread"


def test_an_unfinished_word_the_recognizer_guessed_and_ends_on_leaves_the_turn_to_the_audio() -> None:
    """ "... something's about" ("about" at 0.40, a full stop at 0.68): a misheard end, not a caller
    stopping on "about": the audio decides, after the unsure gap at least. A trusted "to", a
    guess the decoder does not end on, and the recognizer's own odds for a word it did not write
    still wait the bound."""
    p = TurnEndPolicy()
    text = "bring to what something's about"
    misheard = Heard.of([*((w, 0.9) for w in text.split()[:-1]), ("about", 0.40)], ends=0.68)
    assert p.verdict(text, 0.97, heard=misheard) == (p.unsure_gap_s, "guessed ending")
    assert p.verdict(text, 0.2, heard=misheard) == (p.hesitation_gap_s, "guessed ending")
    assert p.speculate_after_s(text, misheard) == pytest.approx(p.unsure_gap_s - p.speculate_lead_s)
    stopped = Heard.of([*((w, 0.9) for w in text.split()[:-1]), ("about", 0.40)], ends=0.1)
    assert p.verdict(text, 0.97, heard=stopped)[1] in ("goes on", "unfinished")
    falling = Heard.of([("is", 0.9), ("it", 0.9), ("possible", 0.9), ("to", 0.95)], ends=0.96)
    assert p.verdict("is it possible to", 0.97, heard=falling) == (p.unfinished_gap_s, "unfinished")
    four = Heard.of([("a", 0.9), ("table", 0.9), ("four", 0.3)], ends=0.9, unfinished=0.6)
    assert p.verdict("a table four", 0.97, heard=four) == (p.unfinished_gap_s, "unfinished")
    assert p.verdict(text, 0.97) == (p.unfinished_gap_s, "unfinished")  # no odds given: the words
