"""The words the benchmark speaks, how an LLM would stream them, and the naive sentence splitter.

Everything here is deterministic: token splits come from a seeded generator, so two runs of the
benchmark feed the engine exactly the same text in exactly the same pieces.
Never imports the engine; never measures anything.
"""

from __future__ import annotations

import re

import numpy as np

#: first clauses of an answer, as a voice bot starts them
OPENERS: tuple[str, ...] = (
    "Sure, ",
    "Of course, ",
    "Let me check that for you, ",
    "Hello there, how can I help? ",
    "Absolutely, ",
    "Good question, ",
    "Thanks for waiting, ",
    "Okay, ",
    "I see, ",
    "No problem at all, ",
    "Great news, ",
    "Right, ",
)

#: what follows the opener; each starts lower-case and is capitalised after a sentence end
CONTINUATIONS: tuple[str, ...] = (
    "your table for two is booked for Friday at seven. Is there anything else?",
    "the next train to the airport leaves at half past four from platform two.",
    "I have moved your appointment to Tuesday morning. You will get a text shortly.",
    "the parcel left our warehouse yesterday and should arrive by Thursday.",
    "your balance is two hundred and forty dollars. Would you like to pay it now?",
    "the pharmacy on Main Street is open until nine tonight.",
    "I can send the form to your email address. It takes about a minute.",
    "your flight is on time and boarding starts at gate twelve.",
    "we have rooms available on both nights. Shall I hold one for you?",
    "the technician can visit between ten and twelve tomorrow.",
    "your order number is four five seven two. Please keep it for your records.",
    "the weather there will be sunny with a light breeze all weekend.",
    "I have noted your new address. Your next bill will go there.",
    "the doctor can see you at three fifteen this afternoon.",
    "your subscription renews on the first of the month.",
    "the store closes at six today, but it opens early on Saturday.",
    "I found three hotels near the conference centre. The cheapest is the Harbour Inn.",
    "your refund was approved this morning and will reach your card in five days.",
    "the museum is free on Sundays. Tickets are not needed.",
    "I can transfer you to billing right away. Please stay on the line.",
)

#: multi-sentence answers for the join analysis, the capacity run and the timeline plot
PARAGRAPHS: tuple[str, ...] = (
    "Sure, I can do that. Your booking is for two people on Friday at seven. "
    "Is there anything else I can help you with today? Have a lovely evening!",
    "Of course, let me look that up. The next bus leaves in twelve minutes from stop B. "
    "It takes about half an hour to reach the station.",
    "Thanks for waiting. I have checked your account, and the payment went through this morning. "
    "You will receive a receipt by email.",
    "Hello there, welcome back. Your prescription is ready for pickup. "
    "The pharmacy closes at nine, so there is plenty of time.",
    "Good question. The warranty covers parts and labour for two years. "
    "After that, repairs are charged at a flat rate. Would you like the details in writing?",
    "Okay, I have cancelled the old order. A new one is on its way with express delivery. "
    "It should arrive on Wednesday before noon.",
    "Right, the meeting room on the third floor is free at two. I have reserved it for an hour. "
    "Should I invite the rest of the team?",
    "No problem. Your password has been reset. Check your inbox for a link, "
    "and remember that it expires in thirty minutes.",
)

#: a long multi-paragraph answer for the real-time factor
LONG_TEXT = "\n\n".join(
    (
        "Thank you for calling the city library. Our main branch is open from nine in the morning until "
        "eight in the evening on weekdays, and from ten until five on Saturdays. On Sundays, only the "
        "reading room is open, from noon until four.",
        "You can borrow up to twenty items at a time. Books can be kept for three weeks, and films for "
        "one week. If nobody else has reserved an item, you can renew it twice, either online, by phone, "
        "or at any of our branches. Late returns cost twenty cents per day, up to a maximum of five "
        "dollars per item.",
        "If you would like a library card, please bring a photo identification and a recent letter with "
        "your address. Cards are free for everyone who lives, works, or studies in the city. Children "
        "under twelve need a parent or guardian to sign the form with them.",
        "We also run free events every week. On Tuesdays there is a story hour for young children, on "
        "Wednesdays a computer help desk, and on Thursdays a book club that meets in the garden when the "
        "weather is good. You can find the full programme on our website.",
        "Is there anything else I can help you with today? If not, thank you for calling, and have a "
        "wonderful day.",
    )
)

_SENTENCE_END = re.compile(r"[.!?…][\"”’')\]]*(?=\s)")


def turn_text(index: int) -> str:
    """The ``index``-th latency turn: openers and continuations combined so neighbours differ."""
    opener = OPENERS[index % len(OPENERS)]
    rest = CONTINUATIONS[(index // len(OPENERS) + 7 * index) % len(CONTINUATIONS)]
    if opener.rstrip().endswith((".", "?", "!")):
        rest = rest[0].upper() + rest[1:]
    return opener + rest


#: one answer at three lengths, for the benchmarks that compare two ways of streaming it
#: (``benchmarks/livekit_bench.py``, ``benchmarks/remote_bench.py``)
BOOKING_ANSWERS: dict[str, str] = {
    "one sentence": "Sure, I can book a table for two at eight tonight.",
    "two sentences": (
        "Sure, I can book a table for two at eight tonight. The terrace is open if the weather holds."
    ),
    "four sentences": (
        "Sure, I can book a table for two at eight tonight. The terrace is open if the weather "
        "holds. We also have a tasting menu on Fridays, with a vegetarian option. Shall I put "
        "the booking under your name?"
    ),
}


def word_pieces(text: str) -> list[str]:
    """Word pieces with their leading spaces, long words in two, as an LLM streams them."""
    out: list[str] = []
    for i, word in enumerate(text.split(" ")):
        piece = word if i == 0 else f" {word}"
        out.extend([piece[:3], piece[3:]] if len(piece) > 6 else [piece])
    return out


def tokenize(text: str, seed: int) -> list[str]:
    """Split ``text`` the way an LLM streams it: pieces of one to five characters, seeded."""
    rng = np.random.default_rng(seed)
    out: list[str] = []
    i = 0
    while i < len(text):
        n = int(rng.integers(1, 6))
        out.append(text[i : i + n])
        i += n
    return out


def naive_sentences(text: str) -> list[str]:
    """Whole sentences as a naive server cuts them: at . ! ? followed by whitespace."""
    out: list[str] = []
    start = 0
    for match in _SENTENCE_END.finditer(text):
        piece = text[start : match.end()].strip()
        if piece:
            out.append(piece)
        start = match.end()
    tail = text[start:].strip()
    if tail:
        out.append(tail)
    return out


def first_sentence_token(tokens: list[str]) -> tuple[int, str]:
    """(index of the token that completes the first sentence, that sentence) for a naive server.

    A naive server knows a sentence is complete when whitespace follows its end punctuation, or
    when the stream ends.
    """
    text = ""
    for i, token in enumerate(tokens):
        text += token
        match = _SENTENCE_END.search(text)
        if match is not None:  # the lookahead saw the whitespace: the sentence is complete
            return i, text[: match.end()].strip()
    return len(tokens) - 1, text.strip()
