"""When the caller has finished: silence, what an audio model heard, and what the words say, in one place.

    policy = TurnEndPolicy()                      # the gaps below, configurable
    policy.gap_s("I'd like a table for", 0.98)   # 1.4: the words are unfinished, whatever the audio says
    policy.gap_s("What time do you open", 0.97)  # 0.25: complete; answer after a human gap
    policy.gap_s("What time do you open", 0.2)   # 0.45: a whole question, but the voice is unsure
    policy.gap_s("I need a table", 0.2)          # 1.0: the voice says "not done"; wait out a hesitation
    policy.gap_s("what kind you open", 0.97, heard=guessed)   # 0.4: words not trusted; the audio decides

The verdict is a gap: how long the caller must have been silent before the bot answers. The cues
are weighed strongest first, and the words only as far as the recognizer trusts them (``heard``:
the last transcript's word posteriors, ``confidence.Heard``; None when the STT gives none):

1. the recognizer's own decoder says the utterance goes on (``Heard.ends``, the probability that
   it ends after the last word, under ``ends_probability``): a learned score of the words and the
   audio together (whisper punctuates from both), which hears a caller stop mid-sentence where
   the words read whole ("I would like to book a table. ..." for "... a table but ... only if");
   the wait is ``unfinished_gap_s``. So does voice that runs on after the last word the
   recognizer wrote (``Heard.unheard_s`` at ``dropped_word_s`` or more): it left a word out, the
   phrase is unfinished whatever its words ("I would like to book a table" for "... a table
   but"). Where the recognizer gives no score (pocketsphinx, another
   STT) the words' lists below decide alone. So, with any recognizer and in any language, does
   speech heard after the last transcript that no words have come for (``unread``): the VAD
   split a phrase before its last word and the recognizer found no word in that stretch alone
   (whisper on "where" of "Is there a place ... where", "and" of "my mother ... and": in the wide
   set's calls every such stretch was the dropped function word of a hesitation), or an STT whose
   words come after the VAD's stop has not sent them yet; the turn is not answered on words that
   stop before the caller did. A cough after the last word waits the bound too.
   Then the words say unfinished (``cues.unfinished``): a phrase that ends on a preposition, a
   conjunction, an article, an auxiliary or a filler waits ``unfinished_gap_s``, at any
   confidence: a hesitation missed is a cut-in the caller hears, a false one costs at most this
   bound (1.4 s: the longest hesitation of the tuned callers is 1.0 s written and 1.16 s of
   silence in the voice, and the level hears a caller resume 60-100 ms in; at 1.2 s the bot
   answered into "Do you have a table near ... the window?"). So does a phrase
   whose last word the recognizer itself gives at least ``unfinished_probability`` of being such
   a word (``Heard.unfinished``: whisper's share for "for" where it wrote "four"), and a phrase
   that ends on a word a recognizer writes for a misheard article (``cues.ARTICLE_SOUNDALIKES``:
   "a table near the" heard "near them") when its odds of an article there reach
   ``article_soundalike_probability``. Synthesized speech and many callers end every phrase with
   falling prosody, so an audio model alone calls "a table for" complete; the words overrule it.
   Not where the recognizer only guessed the listed word and ends the sentence after it
   (``ends_on_a_guess``: "... something's about" for "... something simple", "about" at 0.40
   and a full stop at 0.68): the audio decides then, after ``unsure_gap_s`` at least.
2. words that are not trusted (``Heard.trusted``: the last word or the words as a whole below
   ``trust``) decide nothing more: the audio does. Smart Turn's probability at or above
   ``complete_probability`` answers after ``audio_gap_s``; under it, ``hesitation_gap_s``
   (``unsure_gap_s`` while the model has not answered yet).
3. trusted words: below ``complete_probability`` the bot waits ``hesitation_gap_s`` (the voice
   goes on: a caller who stops to think keeps a sentence's level or rising pitch, and their
   pause runs 0.5-1 s; whisper drops a phrase's last "who" or "where" and writes a whole
   sentence), or only ``question_gap_s`` for words that make a whole question
   (``cues.question``: "What is the weather like", which the model, hearing a voice that did not
   fall, calls unfinished); while the model has not answered, ``unsure_gap_s``. A turn of
   nothing but words that often open a sentence ("Yes," "Well," "Wait,": ``cues.opener_only``)
   waits ``unsure_gap_s`` whatever the audio.
4. otherwise ``complete_gap_s``, a human gap (0.25 s: people answer 0.1-0.3 s after a turn
   ends), about the pause after a comma in the middle of a sentence (0.2-0.45 s in hibari's
   voice).

A turn that began by talking over the bot (``after_barge_in``) and has fewer than
``barge_in_min_words`` words waits ``unsure_gap_s`` at least: "Wait, stop please" pauses after its
first word, and a barge-in's first word is misheard more often than not ("wait" as "when"); the
bot is silent meanwhile, so the wait costs the caller nothing.

Every gap is bounded: after ``unfinished_gap_s`` of silence the bot answers whatever the cues say.
A speculative answer starts ``speculate_lead_s`` before the gap the words alone would need (at once
for a turn that reads complete, before the audio model has answered), so that it is ready the
moment the turn's gap is reached; the audio cue only ever makes the bot wait longer.

Pure and synchronous: numbers and text in, numbers out.
"""

from __future__ import annotations

from dataclasses import dataclass

from agent.turn_taking.confidence import TRUST, Heard
from agent.turn_taking.cues import ends_on_article_soundalike, opener_only, question, unfinished, words_of

#: the alignment places the last of fewer words than this too loosely to tell a word left out: a
#: caller's "No." or "I see." ran on 0.18-0.22 s past it in the wide set's calls
DROPPED_WORD_MIN_WORDS = 3


@dataclass(frozen=True, slots=True)
class TurnEndPolicy:
    """How long a silence must be, given the cues, before the bot answers."""

    #: silence after a complete-sounding, complete-reading turn
    complete_gap_s: float = 0.25
    #: silence after words the recognizer is not sure of, when the audio sounds complete
    audio_gap_s: float = 0.4
    #: silence after a whole question the audio model is not sure of
    question_gap_s: float = 0.45
    #: silence while the audio model has not answered, and after a turn of openers ("Yes,") or a
    #: short barge-in
    unsure_gap_s: float = 0.7
    #: silence when the audio model hears the voice go on (under ``complete_probability``) and no
    #: word says the turn is a question or unfinished: longer than most hesitations (the tuned
    #: callers' and the wide set's run 0.5-1.0 s written, and a pause said in a voice is up to
    #: 0.15 s longer; at 0.7 the wide set's "I have a friend who ... cannot eat", written "I have a
    #: friend" and trusted, was answered after 0.7 s of its 0.8). A real end the model hears as
    #: unfinished pays the difference
    hesitation_gap_s: float = 1.0
    #: silence after an unfinished phrase, and the bound on every wait
    unfinished_gap_s: float = 1.4
    #: Smart Turn's probability at or above which the audio counts as complete
    complete_probability: float = 0.5
    #: a speculative answer starts this long before its gap ends (so it is ready at the gap)
    speculate_lead_s: float = 0.35
    #: a turn that talked over the bot with fewer words than this waits ``unsure_gap_s`` at least
    barge_in_min_words: int = 3
    #: the word posterior from which the words' cues count (``confidence.Heard.trusted``)
    trust: float = TRUST
    #: the recognizer's probability of an unfinished last word (``Heard.unfinished``) from which
    #: the phrase counts as unfinished whatever word it wrote: below even odds, since a missed
    #: hesitation is a cut-in and a false one costs at most the bound (no complete phrase of the
    #: tuned callers reaches 0.2 with whisper tiny.en; ``benchmarks/stt_bench.py``)
    unfinished_probability: float = 0.3
    #: the same odds for a phrase that ends on ``cues.ARTICLE_SOUNDALIKES`` ("them", "this", "us"):
    #: whisper tiny.en leaves an article a median 0.06 % where it heard the pronoun (90 % under
    #: 0.35 %), and 3.4 % where it wrote one for a misheard "the" or "a" (90 % above 0.43 %). The
    #: value misreads the fewest phrases of neither caller set (``benchmarks/stt_bench.py
    #: --endings-only``: at 0.15-0.2 % 8 of 111, 2 of 69 fragments read finished and 6 of 42 whole
    #: phrases unfinished; at 0.5 % 11, at 0.1 % 15); a whole phrase read unfinished waits the
    #: bound, and most that do were misheard elsewhere too ("if that mine")
    article_soundalike_probability: float = 0.002
    #: read the words' cues (``cues``: English words); False, for a caller in another language:
    #: Smart Turn's audio and the silence decide alone
    words: bool = True
    #: the recognizer's probability that the utterance ends after its last word (``Heard.ends``)
    #: below which the phrase is unfinished, whatever its words: even odds, chosen on no caller
    #: set. On whisper tiny.en every whole sentence of both sets and of ``ENDINGS`` scores 0.52
    #: or more, the hesitations cut out of whole sentences mostly under 0.35
    #: (``benchmarks/stt_bench.py``); a word that cannot end a sentence still waits however high
    #: the score (a fragment said with falling pitch scores as high as a sentence: "Is it
    #: possible to?" 0.96)
    ends_probability: float = 0.5
    #: voice after the last written word's end (``Heard.unheard_s``) from which a word was left out
    #: and the phrase is unfinished: about a short function word's length ("and", "but"). With
    #: whisper tiny.en the last word's alignment ends -0.16..+0.08 s from the last voiced audio
    #: where it wrote every word, 0.38-0.40 s where it dropped "and" or "but"
    #: (``benchmarks/stt_cuts.py``)
    dropped_word_s: float = 0.2

    def __post_init__(self) -> None:
        gaps = (
            self.complete_gap_s,
            self.question_gap_s,
            self.unsure_gap_s,
            self.hesitation_gap_s,
            self.unfinished_gap_s,
        )
        if gaps[0] <= 0 or list(gaps) != sorted(gaps):
            raise ValueError(
                "gaps must satisfy 0 < complete <= question <= unsure <= hesitation <= unfinished"
            )
        if not self.complete_gap_s <= self.audio_gap_s <= self.unsure_gap_s:
            raise ValueError("gaps must satisfy complete <= audio <= unsure")
        odds = (
            self.complete_probability,
            self.unfinished_probability,
            self.article_soundalike_probability,
            self.ends_probability,
        )
        if not all(0.0 <= p <= 1.0 for p in odds):
            raise ValueError("complete_probability and the unfinished probabilities are probabilities")
        if self.article_soundalike_probability > self.unfinished_probability:
            raise ValueError("article_soundalike_probability must not exceed unfinished_probability")
        if self.speculate_lead_s < 0 or self.dropped_word_s <= 0:
            raise ValueError("speculate_lead_s must not be negative, dropped_word_s must be positive")

    def gap_s(
        self,
        text: str,
        probability: float | None,
        *,
        after_barge_in: bool = False,
        heard: Heard | None = None,
        unread: bool = False,
    ) -> float:
        """The silence ``text`` (the turn so far) needs before an answer, given Smart Turn's
        ``probability`` for the audio (None: not known yet), how far the recognizer trusts its
        last transcript (``heard``; None: no confidence given, the words count) and whether
        speech came after it that no words have come for (``unread``)."""
        return self.verdict(text, probability, after_barge_in=after_barge_in, heard=heard, unread=unread)[0]

    def verdict(
        self,
        text: str,
        probability: float | None,
        *,
        after_barge_in: bool = False,
        heard: Heard | None = None,
        unread: bool = False,
    ) -> tuple[float, str]:
        """``gap_s`` and the cue that set it (for logs): "unread" (speech after the words),
        "goes on" (the recognizer's decoder), "unfinished" (the words), "guessed ending" (an
        unfinished word the recognizer guessed and ends on), "unsure", "barge-in",
        "hesitant" (the audio), "audio", "question" or "complete"."""
        if unread:
            return self.unfinished_gap_s, "unread"
        if not self.words:  # another language: English cues would misread its words
            return self._by_audio(probability)
        if self.goes_on(heard, text):
            return self.unfinished_gap_s, "goes on"
        if self.unfinished(text, heard):
            if self.ends_on_a_guess(text, heard):
                gap, _ = self._by_audio(probability)
                return max(gap, self.unsure_gap_s), "guessed ending"
            return self.unfinished_gap_s, "unfinished"
        if opener_only(text):
            return self.unsure_gap_s, "unsure"
        if after_barge_in and len(words_of(text)) < self.barge_in_min_words:
            return self.unsure_gap_s, "barge-in"
        if not self.trusts(heard):
            return self._by_audio(probability)
        if probability is not None and probability >= self.complete_probability:
            return self.complete_gap_s, "complete"
        if question(text):
            return self.question_gap_s, "question"
        return (self.unsure_gap_s, "unsure") if probability is None else (self.hesitation_gap_s, "hesitant")

    def _by_audio(self, probability: float | None) -> tuple[float, str]:
        """The verdict of Smart Turn alone (the words decide nothing)."""
        if probability is None:
            return self.unsure_gap_s, "unsure"
        if probability >= self.complete_probability:
            return self.audio_gap_s, "audio"
        return self.hesitation_gap_s, "hesitant"

    def unfinished(self, text: str, heard: Heard | None = None) -> bool:
        """Whether ``text`` reads unfinished, or its recognizer says its last word likely is (or may
        be, when it wrote a word that a misheard article sounds like); never without ``words``."""
        if not self.words:
            return False
        if unfinished(text):
            return True
        if heard is None:
            return False
        if heard.unfinished >= self.unfinished_probability:
            return True
        soundalike = ends_on_article_soundalike(heard.text)
        return soundalike and heard.unfinished >= self.article_soundalike_probability

    def ends_on_a_guess(self, text: str, heard: Heard | None) -> bool:
        """Whether ``text`` ends on a word no sentence ends on (``cues.unfinished``) that the
        recognizer wrote only as a guess, and its decoder ends the sentence after it all the same
        (``Heard.ends`` at ``ends_probability`` or more): a misheard end ("The children are ...
        going to want something simple" written "... something's about", "about" at 0.40, a full
        stop at 0.68). Such a turn is not held to the bound: the audio decides, after
        ``unsure_gap_s`` at least. A caller who stops on the word keeps the pitch of a sentence
        that goes on, and whisper scores the end under even odds (every cut hesitation of the wide
        set, ``benchmarks/stt_cuts.py``); a trusted word ("Is it possible to?", said falling,
        0.96) still waits the bound, and so does a word the recognizer's odds alone read
        unfinished ("four" for "for", "them" for "the"), which weigh the words it did not write."""
        return (
            unfinished(text)
            and heard is not None
            and heard.ends is not None
            and heard.ends >= self.ends_probability
            and heard.last_confidence < self.trust
        )

    def goes_on(self, heard: Heard | None, text: str | None = None) -> bool:
        """Whether the recognizer says the utterance goes on after its last word: voice after its
        last word's end (``Heard.unheard_s`` at ``dropped_word_s`` or more: a word it left out),
        or its decoder's score (``Heard.ends`` under ``ends_probability``) where it heard the whole
        turn ``text``: the rest of a sentence said after a pause opens mid-sentence, and whisper,
        hearing it alone, gives its end a full stop at as little as 0.4 (Piper's joe: "... about
        forty minutes"). False where it does not say."""
        if heard is None:
            return False
        dropped = heard.unheard_s is not None and heard.unheard_s >= self.dropped_word_s
        if dropped and len(heard.words) >= DROPPED_WORD_MIN_WORDS:
            return True
        whole = text is None or words_of(text) == words_of(heard.text)
        return whole and heard.ends is not None and heard.ends < self.ends_probability

    def trusts(self, heard: Heard | None) -> bool:
        """Whether the words' cues count: no confidence given, or the recognizer trusts them."""
        return heard is None or heard.trusted(self.trust)

    def speculate_after_s(self, text: str, heard: Heard | None = None, *, unread: bool = False) -> float:
        """The silence after which to start a speculative answer to ``text``: the lead before the
        gap its words need (most turns read complete, and the audio model answers after that)."""
        if unread or (self.words and self.goes_on(heard, text)):
            gap = self.unfinished_gap_s
        elif self.words and self.unfinished(text, heard):
            # a guessed ending: the audio decides, after the unsure gap at least
            gap = self.unsure_gap_s if self.ends_on_a_guess(text, heard) else self.unfinished_gap_s
        else:
            gap = self.complete_gap_s if self.trusts(heard) and self.words else self.audio_gap_s
        return max(0.0, gap - self.speculate_lead_s)


__all__ = ["DROPPED_WORD_MIN_WORDS", "TurnEndPolicy"]
