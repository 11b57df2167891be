"""What a caller's words say about their turn: unfinished, a backchannel, or a real interruption.

    unfinished("I would like to book a table for")   # True: it ends on a preposition
    backchannel("uh huh", BACKCHANNELS)              # True: the caller is only acknowledging
    interrupts("yeah wait", BACKCHANNELS, STOPS)     # True: "wait" always interrupts

A phrase that ends on a word that cannot end an English sentence (a preposition, a conjunction,
an article or possessive, an auxiliary or modal, a filler) is unfinished whatever the voice did:
speech synthesizers and many callers end every phrase with falling prosody, which an audio model
alone reads as "done". These tests are deliberately conservative: a word that often ends a
sentence ("up", "out", "in", "on") is not on the list, so a finished sentence is never held back
by them for more than the policy's bound; "to" is, since a caller who stops on it ("Is it
possible to", "I need to") is nearly always choosing the verb. Three endings on such a word are
finished all the same: a question that opens with a wh-word may strand its preposition ("What is
the weather like?", "Who am I speaking to?"); a short reply may end on its auxiliary after a
pronoun ("Yes, I do.", "What time it is"), as may a question inside a sentence ("Could you tell
me where you are?"); and "so" after a verb of thinking ("I think so").

Pure functions over lowercase word lists; no state, no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence

_WORD = re.compile(r"[^\W\d_]+(?:'[^\W\d_]+)*")  # letters of any script: "sí", "d'accord"


def _listed(*groups: str) -> frozenset[str]:
    return frozenset(word for group in groups for word in group.split())


#: words after which an English sentence is not finished (the caller is still speaking)
CONTINUATIONS: frozenset[str] = _listed(
    # prepositions that need an object (not those that end a sentence as often as a phrasal
    # verb's particle: "drop by", "turn it off", "come over", "look around", "the day after")
    "about against among at beneath beside between beyond despite during except for from into "
    "near of onto toward towards under until upon via with within without",
    # conjunctions
    "and but or nor so because although though while whereas if unless whether than as",
    # articles, and determiners that are never a pronoun ("that", "this", "some", "any", "her",
    # "no" often end a sentence: "I'll take that", "Do you have any", "I saw her", "No")
    "a an the my your its our their every",
    # auxiliaries and modals, pronoun-contractions that need a verb after them
    "am is are was were be been being have has had do does did will would shall should can could "
    "may might must i'm you're we're they're he's she's it's i'd you'd we'd they'd i'll you'll "
    "we'll they'll i've you've we've they've",
    # fillers and hedges
    "um uh er erm like",
    # the infinitive's "to" ("Is it possible to ... bring a dog?"): a caller planning the verb
    "to",
)

#: the prepositions among ``CONTINUATIONS``: a wh-question may end on one ("What is it for?")
PREPOSITIONS: frozenset[str] = _listed(
    "about against among at beneath beside between beyond despite during except for from into "
    "near of onto toward towards under until upon via with within without like to"
)
#: the words that open a question whose preposition may come last
WH_WORDS: frozenset[str] = _listed("what what's who who's whom which where where's whose how how's")
#: auxiliaries and modals a short reply may end on after its subject ("Yes, I can.")
_AUXILIARIES: frozenset[str] = _listed(
    "am is are was were have has had do does did will would shall should can could may might must"
)
_SUBJECTS: frozenset[str] = _listed("i you we they he she it there that")
#: words before an infinitive's "to", which a wh-question does not strand ("What do I need to")
_BEFORE_INFINITIVE: frozenset[str] = _listed(
    "need want have has had going able like love try trying supposed possible got ought used"
)
_THINKING: frozenset[str] = _listed("think hope guess believe suppose")
#: a reply this short may end on its auxiliary; a longer phrase ending so ("I was wondering if
#: you could") is going on
_SHORT_REPLY_WORDS = 4

#: words a recognizer with a language model writes at the end of a phrase for an article or a
#: possessive it heard there ("a table near the" -> "near them", "I was hoping to get a" -> "get
#: this", "about my" -> "about mine"): before silence, a reduced "the" or "a" sounds like a word
#: that ends a sentence, and the model prefers a sentence that ends. Such an ending is finished or
#: not by the recognizer's own odds of an article in its place (``TurnEndPolicy.unfinished``)
ARTICLE_SOUNDALIKES: frozenset[str] = _listed("this that these those them then there us it mine")

#: words that open a sentence as often as they make one ("Well, ...", "Yes, I would...", "Wait, ...")
OPENERS: frozenset[str] = _listed(
    "well so okay ok yes yeah yep no nope wait hello hi hey oh ah um uh alright right sure "
    "actually anyway listen look please sorry excuse me thanks"
)

#: what a caller says over the bot to show they are listening (the bot keeps talking)
BACKCHANNELS: tuple[str, ...] = (
    "yeah",
    "yes",
    "yep",
    "uh huh",
    "mm hmm",
    "mhm",
    "hmm",
    "right",
    "okay",
    "ok",
    "sure",
    "got it",
    "i see",
    "alright",
    "all right",
    "cool",
    # as whisper writes a listener's sounds ("Uh huh." as "Aha.", "Mhm." as "Mm.", "Hm.")
    "aha",
    "mm",
    "hm",
    "mmhmm",
    "uhhuh",
    "yup",
    "gotcha",
    "got you",
    "exactly",
    "understood",
    "makes sense",
    "of course",
    "perfect",
    "great",
    # a listener's news-receipt and its agreement ("Oh, okay.", "Oh, I see.", "Sounds good.")
    "oh",
    "sounds good",
)

#: words that always interrupt the bot, backchannel or not
STOP_WORDS: frozenset[str] = frozenset({"stop", "wait", "no", "hold", "hang", "sorry", "excuse", "what"})


def words_of(text: str) -> list[str]:
    """Lowercase words without punctuation."""
    return _WORD.findall(text.lower())


def unfinished(text: str) -> bool:
    """True when ``text`` ends on a word after which an English sentence cannot end (but for the
    stranded preposition of a wh-question, a short reply's auxiliary and "I think so")."""
    words = [w for w in words_of(text) if w not in _OPENING_FILLERS]
    if not words or words[-1] not in CONTINUATIONS:
        return False
    last, before = words[-1], words[-2] if len(words) > 1 else ""
    stranded = last in PREPOSITIONS and not (last == "to" and before in _BEFORE_INFINITIVE)
    if stranded and words[0] in WH_WORDS and len(words) > 2:
        return False  # "what is the weather like", "who am i speaking to"
    if last in _AUXILIARIES and before in _SUBJECTS:
        if len(words) <= _SHORT_REPLY_WORDS:
            return False  # "yes i do", "what time it is"
        if any(w in WH_WORDS for w in words[-5:-2]):
            return False  # a question inside the sentence: "could you tell me where you are"
    return not (last == "so" and before in _THINKING)  # "i think so"


#: answer words that may open a reply and do not count in its length ("Yes, I do")
_OPENING_FILLERS: frozenset[str] = _listed("yes yeah yep no nope well oh ok okay")


def ends_on_article_soundalike(text: str) -> bool:
    """True when ``text``'s last word is one a recognizer may write for a misheard article
    (``ARTICLE_SOUNDALIKES``)."""
    words = words_of(text)
    return bool(words) and words[-1] in ARTICLE_SOUNDALIKES


def question(text: str) -> bool:
    """True when ``text`` is worded as a question: it opens with a wh-word or an inverted
    auxiliary ("Is it sunny today", "Can I bring a dog") and has a few words to it."""
    words = words_of(text)
    return len(words) >= 3 and (words[0] in WH_WORDS or words[0] in _AUXILIARIES)


def opener_only(text: str) -> bool:
    """True when ``text`` is only words that often open a longer sentence ("Yes," "Well," "Wait,"):
    the pause after them is as likely a comma's as the end of the turn."""
    words = words_of(text)
    return bool(words) and all(w in OPENERS for w in words)


def backchannel(text: str, phrases: Sequence[str] = BACKCHANNELS) -> bool:
    """True when ``text`` is nothing but backchannel phrases ("yeah", "uh huh, okay")."""
    words = words_of(text)
    if not words:
        return False
    options = sorted((words_of(p) for p in phrases), key=len, reverse=True)
    i = 0
    while i < len(words):
        match = next((p for p in options if p and words[i : i + len(p)] == p), None)
        if match is None:
            return False
        i += len(match)
    return True


def interrupts(text: str, phrases: Sequence[str] = BACKCHANNELS, stops: Collection[str] = STOP_WORDS) -> bool:
    """True when ``text`` holds a word that always interrupts, or anything but backchannel."""
    words = words_of(text)
    if not words:
        return False
    return any(w in stops for w in words) or not backchannel(text, phrases)


__all__ = [
    "ARTICLE_SOUNDALIKES",
    "BACKCHANNELS",
    "CONTINUATIONS",
    "PREPOSITIONS",
    "STOP_WORDS",
    "WH_WORDS",
    "backchannel",
    "ends_on_article_soundalike",
    "interrupts",
    "opener_only",
    "question",
    "unfinished",
    "words_of",
]
