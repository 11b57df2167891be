"""Tests for tts_service.engine.segmenter: tokens in, speakable units out, with plain-float times."""

from __future__ import annotations

import ast
import math
import time
import unicodedata
from collections.abc import Sequence
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tts_service.engine import punctuation as punctuation_module
from tts_service.engine import segmenter as segmenter_module
from tts_service.engine.segmenter import ABBREVIATIONS, Boundary, Segmenter, Unit
from tts_service.errors import InvalidInputError, TextTooLongError

B = Boundary


def segment(tokens: Sequence[str], now_s: float = 0.0, **options: Any) -> list[Unit]:
    """Feed every token at ``now_s``, flush, and return all units."""
    seg = Segmenter(**options)
    for token in tokens:
        seg.feed(token, now_s)
    seg.flush()
    return seg.units_ready()


def pairs(units: Sequence[Unit]) -> list[tuple[str, Boundary]]:
    return [(unit.text, unit.boundary) for unit in units]


def texts(units: Sequence[Unit]) -> list[str]:
    return [unit.text for unit in units]


# -- sentences and clauses --------------------------------------------------------------------------


def test_first_unit_is_cut_at_the_first_clause_and_later_units_are_sentences() -> None:
    """The first unit ends at a comma; later commas stay inside whole sentences."""
    units = segment(["Hel", "lo", ",", " there", ", my", " friend. How", " are you, today? I", " am fine."])
    assert pairs(units) == [
        ("Hello,", B.CLAUSE),
        ("there, my friend.", B.SENTENCE),
        ("How are you, today?", B.SENTENCE),
        ("I am fine.", B.FLUSH),
    ]
    assert [unit.index for unit in units] == [0, 1, 2, 3]


@pytest.mark.parametrize("mark", [";", ":", " —", " –", " -"])
def test_first_unit_is_cut_at_semicolon_colon_and_free_standing_dash(mark: str) -> None:
    """; and : followed by a space, and a dash between spaces, cut the first unit."""
    units = segment([f"Well{mark}", " I think so. Yes"])
    assert pairs(units) == [(f"Well{mark}", B.CLAUSE), ("I think so.", B.SENTENCE), ("Yes", B.FLUSH)]


def test_dash_that_opens_a_line_is_a_bullet_not_a_clause() -> None:
    """ "- item" at the start of a unit is a list bullet; the dash alone is never a unit."""
    assert pairs(segment(["- one item\n- two"])) == [("- one item", B.PARAGRAPH), ("- two", B.FLUSH)]


def test_sentence_boundary_waits_for_the_next_character() -> None:
    """After ". " the boundary is undecided until the next non-space character arrives."""
    seg = Segmenter()
    seg.feed("Hi there. ", 0.0)
    assert seg.units_ready() == []
    seg.feed("  How", 0.0)
    assert pairs(seg.units_ready()) == [("Hi there.", B.SENTENCE)]
    assert seg.buffered_chars == len("How")


def test_lowercase_after_period_is_not_a_boundary() -> None:
    """A period followed by a lowercase word does not end the sentence."""
    assert texts(segment(["The end. of it. Next"])) == ["The end. of it.", "Next"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Wait... What?! No", ["Wait...", "What?!", "No"]),
        ("So… Maybe! Yes", ["So…", "Maybe!", "Yes"]),
        ('He said "Stop." Then left', ['He said "Stop."', "Then left"]),
        ("It was (really?) Fine", ["It was (really?)", "Fine"]),
        ("It is ’done.’ Ok", ["It is ’done.’", "Ok"]),
        ("The total is 12. Then more", ["The total is 12.", "Then more"]),
        ("It costs $3.50. Then more", ["It costs $3.50.", "Then more"]),
        ("Go to example.com. Then more", ["Go to example.com.", "Then more"]),
    ],
)
def test_sentence_ends_with_runs_and_closing_quotes(text: str, expected: list[str]) -> None:
    """?!, ..., … and closing quotes or brackets end a sentence; so does a price or domain before "."."""
    units = segment([text])
    assert texts(units) == expected
    assert {unit.boundary for unit in units[:-1]} == {B.SENTENCE}


@pytest.mark.parametrize(
    "text",
    [
        "Ask Dr. Smith now.",
        "Ask Mrs. Smith now.",
        "Ask PROF. Smith now.",
        "Apples, pears etc. And more.",
        "Red vs. Blue today.",
        "Ask J. Smith now.",
        "Use one e.g. Python today.",
        "Use one i.e. Python today.",
        "It is in the U.S. Army now.",
        "We meet at 10 a.m. Tomorrow then.",
        "See (Dr. Who) now.",
    ],
)
def test_titles_initials_and_dotted_abbreviations_do_not_end_a_sentence(text: str) -> None:
    """A period after a listed abbreviation, an initial or a dotted abbreviation is no boundary."""
    assert texts(segment(["Ok. ", text, " Done"])) == ["Ok.", text, "Done"]


def test_abbreviations_constant_holds_the_listed_titles() -> None:
    """The abbreviation list is a lower-case module constant with the titles and vs/etc."""
    assert {"dr", "mr", "mrs", "ms", "prof", "st", "jr", "sgt", "vs", "etc"} <= ABBREVIATIONS
    assert all(word == word.lower() for word in ABBREVIATIONS)


def test_numbered_list_item_is_not_a_sentence_end() -> None:
    """ "1. " at the start of a line is a list marker; a number ending a sentence mid-line is not."""
    units = segment(["Steps:\n1. Open the app. Then wait.\n2. Click it."])
    assert pairs(units) == [
        ("Steps:", B.PARAGRAPH),
        ("1. Open the app.", B.SENTENCE),
        ("Then wait.", B.PARAGRAPH),
        ("2. Click it.", B.FLUSH),
    ]
    assert texts(segment(["1. First things first. ", "I have 2. Then more"])) == [
        "1. First things first.",
        "I have 2.",
        "Then more",
    ]


# -- never split ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("tokens", "whole"),
    [
        (["It costs $3", ".", "50 today."], "It costs $3.50 today."),
        (["Call Dr", ".", " Smith now."], "Call Dr. Smith now."),
        (["Call Dr", ".", " smith now."], "Call Dr. smith now."),
        (["Pick one e.g", ".", " for now."], "Pick one e.g. for now."),
        (["Meet at 10", ":", "30 today."], "Meet at 10:30 today."),
        (["We have 1", ",", "000 cats."], "We have 1,000 cats."),
        (["Pi is 3", ".", "14 or so."], "Pi is 3.14 or so."),
        (["See https://example", ".", "com/a", ".", "html now."], "See https://example.com/a.html now."),
        (["Mail user@mail", ".", "com today."], "Mail user@mail.com today."),
    ],
)
def test_never_splits_numbers_abbreviations_urls_or_emails(tokens: list[str], whole: str) -> None:
    """Tokens split right at the dot or colon never produce a cut there."""
    seg = Segmenter()
    for token in tokens:
        seg.feed(token, 0.0)
        assert seg.units_ready() == []
    seg.feed(" Next one.", 0.0)
    seg.flush()
    assert pairs(seg.units_ready()) == [(whole, B.SENTENCE), ("Next one.", B.FLUSH)]


def test_hold_never_speaks_a_partial_word() -> None:
    """A hold that expires while "$3." waits for "50" speaks only the complete words."""
    seg = Segmenter()
    seg.feed("It costs $3", 0.0)
    seg.feed(".", 0.01)
    seg.poll(5.0)
    assert pairs(seg.units_ready()) == [("It costs", B.HOLD)]
    seg.feed("50 today.", 5.1)
    seg.flush()
    assert pairs(seg.units_ready()) == [("$3.50 today.", B.FLUSH)]


# -- holds and deadlines ------------------------------------------------------------------------


def test_first_unit_hold_speaks_complete_words_after_the_hold() -> None:
    """With 3 complete words and 0.15 s since the first feed, the complete words become a unit."""
    seg = Segmenter()
    seg.feed("one two", 0.0)
    seg.feed(" three four", 0.05)
    assert seg.next_deadline_s() == pytest.approx(0.15)
    seg.poll(0.149)
    assert seg.units_ready() == []
    seg.poll(0.15)
    assert pairs(seg.units_ready()) == [("one two three", B.HOLD)]
    assert seg.buffered_chars == len("four")
    assert seg.units_emitted == 1


def test_first_unit_hold_fires_inside_feed() -> None:
    """A feed after the first-unit hold has expired cuts the unit at once."""
    seg = Segmenter()
    seg.feed("one two three", 0.0)
    seg.feed(" four", 0.2)
    assert pairs(seg.units_ready()) == [("one two three", B.HOLD)]


def test_first_unit_hold_needs_enough_words() -> None:
    """Fewer than first_unit_min_words complete words are not cut by the first-unit hold."""
    seg = Segmenter(first_unit_min_words=3)
    seg.feed("one two three", 0.0)
    assert seg.next_deadline_s() == pytest.approx(0.6)  # only the tail hold is armed
    seg.poll(0.3)
    assert seg.units_ready() == []
    assert texts(segment(["one two three"], first_unit_min_words=2)) == ["one two three"]


def test_tail_hold_speaks_complete_words_when_tokens_stall() -> None:
    """After the first unit, 0.6 s without a feed speaks the complete words (HOLD)."""
    seg = Segmenter()
    seg.feed("Sure, and then we", 0.0)
    assert pairs(seg.units_ready()) == [("Sure,", B.CLAUSE)]
    seg.feed(" go", 1.0)
    assert seg.next_deadline_s() == pytest.approx(1.6)
    seg.poll(1.59)
    assert seg.units_ready() == []
    seg.poll(1.6)
    assert pairs(seg.units_ready()) == [("and then we", B.HOLD)]
    assert seg.next_deadline_s() is None  # only the partial word "go" is left


def test_tail_hold_resolves_an_undecided_sentence_end() -> None:
    """A sentence end waiting for the next character is spoken by the tail hold as HOLD."""
    seg = Segmenter()
    seg.feed("Sure, it is done. ", 0.0)
    assert pairs(seg.units_ready()) == [("Sure,", B.CLAUSE)]
    seg.poll(0.6)
    assert pairs(seg.units_ready()) == [("it is done.", B.HOLD)]
    seg.feed("Next", 0.7)
    seg.flush()
    assert pairs(seg.units_ready()) == [("Next", B.FLUSH)]


def test_tail_hold_also_speaks_a_short_first_unit() -> None:
    """Before the first unit, a stall of tail_hold_s speaks even fewer than min words."""
    seg = Segmenter()
    seg.feed("Hi. ", 2.0)
    assert seg.next_deadline_s() == pytest.approx(2.6)
    seg.poll(2.6)
    assert pairs(seg.units_ready()) == [("Hi.", B.HOLD)]


def test_next_deadline_s_is_none_without_complete_words() -> None:
    """No deadline before any feed, with only a partial word, or with infinite holds."""
    seg = Segmenter()
    assert seg.next_deadline_s() is None
    seg.feed("   ", 0.0)
    assert seg.next_deadline_s() is None
    seg.feed("partial", 0.0)
    assert seg.next_deadline_s() is None
    seg.feed(" ", 0.0)
    assert seg.next_deadline_s() == pytest.approx(0.6)
    never = Segmenter(first_unit_hold_s=math.inf, tail_hold_s=math.inf)
    never.feed("one two three four five ", 0.0)
    assert never.next_deadline_s() is None
    never.poll(1e9)
    assert never.units_ready() == []


def test_next_deadline_s_is_the_earlier_of_both_holds() -> None:
    """The first-unit hold counts from the first feed, the tail hold from the last."""
    seg = Segmenter(first_unit_hold_s=0.5, tail_hold_s=0.2)
    seg.feed("one two three ", 10.0)
    assert seg.next_deadline_s() == pytest.approx(10.2)
    seg.feed("four ", 10.1)
    assert seg.next_deadline_s() == pytest.approx(10.3)
    seg.poll(seg.next_deadline_s() or 0.0)
    assert pairs(seg.units_ready()) == [("one two three four", B.HOLD)]


def test_poll_at_exact_deadline_fires_despite_float_rounding() -> None:
    """poll(next_deadline_s()) always fires, whatever the rounding of now_s + hold."""
    for start in (0.1, 0.7, 1e6 + 0.3, 12345.678):
        seg = Segmenter(first_unit_hold_s=0.2)
        seg.feed("a b c d", start)
        deadline = seg.next_deadline_s()
        assert deadline is not None
        seg.poll(deadline)
        assert texts(seg.units_ready()) == ["a b c"]


# -- paragraphs, length, flush, reset -------------------------------------------------------------


def test_newline_cuts_a_paragraph_and_blank_lines_make_no_units() -> None:
    """A newline cuts the unit there; blank lines and whitespace make no empty units."""
    units = segment(["Line", " one\n", "\n \n", "Line two.", "\r\n\n  Line three\n\n"])
    assert pairs(units) == [
        ("Line one", B.PARAGRAPH),
        ("Line two.", B.PARAGRAPH),
        ("Line three", B.PARAGRAPH),
    ]


def test_length_cut_prefers_the_last_clause_before_the_limit() -> None:
    """An over-long sentence is cut at its last clause boundary within max_unit_chars."""
    units = segment(["Ok. One two, three four; five six seven eight nine ten."], max_unit_chars=32)
    assert pairs(units) == [
        ("Ok.", B.SENTENCE),
        ("One two, three four;", B.LENGTH),
        ("five six seven eight nine ten.", B.FLUSH),
    ]


def test_length_cut_falls_back_to_the_last_space_before_the_limit() -> None:
    """Without a clause boundary, the cut is at the last whitespace within the limit."""
    units = segment(["Ok. Aaaa bbbb cccc dddd eeee ffff."], max_unit_chars=12)
    assert pairs(units) == [
        ("Ok.", B.SENTENCE),
        ("Aaaa bbbb", B.LENGTH),
        ("cccc dddd", B.LENGTH),
        ("eeee ffff.", B.FLUSH),
    ]
    assert all(len(unit.text) <= 12 for unit in units)


def test_word_longer_than_the_limit_is_cut_into_pieces_as_it_arrives() -> None:
    """A single word over max_unit_chars is cut into pieces of that length as soon as they are
    held (the buffer never holds more of it); the rest waits for whitespace like any word."""
    seg = Segmenter(max_unit_chars=10)
    seg.feed("Ok. Abc ", 0.0)
    seg.feed("x" * 25, 0.0)
    assert pairs(seg.units_ready()) == [
        ("Ok.", B.SENTENCE),
        ("Abc", B.LENGTH),
        ("x" * 10, B.LENGTH),
        ("x" * 10, B.LENGTH),
    ]
    assert seg.buffered_chars == 5
    seg.feed("y" * 4, 0.0)
    assert seg.units_ready() == [] and seg.buffered_chars == 9
    seg.feed(" z", 0.0)
    seg.flush()
    assert pairs(seg.units_ready()) == [("x" * 5 + "y" * 4, B.LENGTH), ("z", B.FLUSH)]


def test_long_word_is_cut_between_grapheme_clusters() -> None:
    """A cut inside a long word never parts a letter from its combining accent; a run of marks
    longer than a unit (nothing to cut between) is cut where the limit falls."""
    accented = "e\u0301" * 10  # 20 code points, 10 clusters
    units = texts(segment([accented], max_unit_chars=7))
    assert units == ["e\u0301" * 3, "e\u0301" * 3, "e\u0301" * 3, "e\u0301"]
    assert all(not unicodedata.combining(u[0]) for u in units)
    zalgo = "a" + "\u0301" * 9
    assert texts(segment([zalgo], max_unit_chars=4)) == ["a\u0301\u0301\u0301", "\u0301" * 4, "\u0301" * 2]


@pytest.mark.parametrize("tokens", [["A" * 1000], ["A"] * 1000, ["AB" * 50] * 10])
def test_a_run_without_spaces_never_makes_a_unit_over_the_limit(tokens: list[str]) -> None:
    """A 1,000-character run of capitals gives units of at most max_unit_chars, however it arrives."""
    units = segment(tokens, max_unit_chars=280)
    assert [len(u.text) for u in units] == [280, 280, 280, 160]
    assert "".join(texts(units)) == "".join(tokens)


def test_flush_speaks_what_is_left_and_starts_a_new_answer() -> None:
    """flush() turns the rest into a FLUSH unit; the next answer cuts its first clause again."""
    seg = Segmenter()
    seg.feed("Yes, it is done. ", 0.0)
    assert pairs(seg.units_ready()) == [("Yes,", B.CLAUSE)]
    seg.flush()
    assert pairs(seg.units_ready()) == [("it is done.", B.FLUSH)]
    assert seg.buffered_chars == 0
    assert seg.next_deadline_s() is None
    seg.flush()  # nothing left: no unit
    assert seg.units_ready() == []
    seg.feed("Also, a partial", 5.0)
    seg.flush()
    units = seg.units_ready()
    assert pairs(units) == [("Also,", B.CLAUSE), ("a partial", B.FLUSH)]
    assert [unit.index for unit in units] == [2, 3]
    assert seg.units_emitted == 4


def test_reset_forgets_buffer_ready_units_and_timers() -> None:
    """reset() drops buffered text, undrained units and timers; indexes restart at 0."""
    seg = Segmenter()
    seg.feed("Hello, there and more", 0.0)
    assert seg.units_emitted == 1
    seg.reset()
    assert seg.units_ready() == []
    assert seg.buffered_chars == 0
    assert seg.units_emitted == 0
    assert seg.next_deadline_s() is None
    seg.feed("Again, yes", 1.0)
    seg.flush()
    assert [(unit.index, unit.text) for unit in seg.units_ready()] == [(0, "Again,"), (1, "yes")]


def test_units_ready_drains() -> None:
    """units_ready() returns each unit once."""
    seg = Segmenter()
    seg.feed("One. Two. Three", 0.0)
    assert texts(seg.units_ready()) == ["One.", "Two."]
    assert seg.units_ready() == []
    assert seg.units_emitted == 2


def test_empty_feed_is_a_no_op() -> None:
    """Feeding "" changes nothing, not even the timers."""
    seg = Segmenter()
    seg.feed("", 0.0)
    seg.feed("one two three ", 5.0)
    seg.feed("", 100.0)
    assert seg.next_deadline_s() == pytest.approx(5.15)


def test_text_too_long_raises_and_leaves_state_unchanged() -> None:
    """A feed past max_buffer_chars raises TextTooLongError and appends nothing."""
    seg = Segmenter(max_buffer_chars=20)
    seg.feed("Ok, one two three", 0.0)
    before = (seg.buffered_chars, seg.units_emitted, seg.next_deadline_s())
    with pytest.raises(TextTooLongError):
        seg.feed(" four five six", 0.01)
    assert (seg.buffered_chars, seg.units_emitted, seg.next_deadline_s()) == before
    assert pairs(seg.units_ready()) == [("Ok,", B.CLAUSE)]
    seg.feed(" four", 0.02)
    seg.flush()
    assert texts(seg.units_ready()) == ["one two three four"]


@pytest.mark.parametrize(
    "options",
    [
        {"first_unit_hold_s": -0.1},
        {"tail_hold_s": math.nan},
        {"first_unit_min_words": 0},
        {"max_unit_chars": 0},
        {"max_buffer_chars": 0},
    ],
)
def test_invalid_options_are_rejected(options: dict[str, Any]) -> None:
    """Negative or NaN holds and non-positive counts raise InvalidInputError."""
    with pytest.raises(InvalidInputError):
        Segmenter(**options)


def test_module_imports_nothing_that_does_io() -> None:
    """The segmenter imports only enum, math, re, dataclasses, the error tree, graphemes (stdlib
    only, checked in its own tests) and its punctuation (re alone)."""

    def imports_of(path: str) -> set[str]:
        imported = set()
        for node in ast.walk(ast.parse(Path(path).read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                imported |= {alias.name for alias in node.names}
            elif isinstance(node, ast.ImportFrom):
                imported.add("." * node.level + (node.module or ""))
        return imported

    allowed = {"__future__", "enum", "math", "re", "dataclasses", "tts_service.errors"}
    engine = {"tts_service.engine.graphemes", "tts_service.engine.punctuation"}
    assert imports_of(segmenter_module.__file__) <= allowed | engine
    assert imports_of(punctuation_module.__file__) <= {"__future__", "re"}


# -- complexity guards ----------------------------------------------------------------------------


def test_one_megabyte_in_small_tokens_is_linear() -> None:
    """1 MB fed as 200,000 tokens and flushed takes well under a few seconds (no rescans)."""
    sentence = "The fox, as ever, jumps over $3.50 dogs at 10:30 a.m. Dr. Smith said so! Really?\n"
    text = (sentence * (1_000_000 // len(sentence) + 1))[:1_000_000]
    seg = Segmenter()
    words = 0
    started = time.perf_counter()
    for i in range(0, len(text), 5):
        seg.feed(text[i : i + 5], 0.0)
        words += sum(len(unit.text.split()) for unit in seg.units_ready())
    seg.flush()
    words += sum(len(unit.text.split()) for unit in seg.units_ready())
    elapsed = time.perf_counter() - started
    assert words == len(text.split())
    assert elapsed < 15.0, f"{elapsed:.1f} s"


def test_long_word_in_one_char_tokens_is_linear() -> None:
    """A 99,999-character word fed one character at a time does not rescan the buffer."""
    seg = Segmenter()
    started = time.perf_counter()
    for _ in range(99_999):
        seg.feed("x", 0.0)
    seg.flush()
    elapsed = time.perf_counter() - started
    assert [len(unit.text) for unit in seg.units_ready()] == [280] * 357 + [39]
    assert elapsed < 10.0, f"{elapsed:.1f} s"


# -- properties -----------------------------------------------------------------------------------

VOCABULARY = [
    "hello", "world", "The", "it", "Yes", "no", "x", "A", "I", "café", "ÉCOLE", "'tis", "(aside)",
    "Dr.", "Mr.", "mrs.", "St.", "e.g.", "i.e.", "U.S.", "a.m.", "etc.", "J.", "vs.", "1.", "2.",
    "$3.50", "10:30", "1,000", "3.14", "example.com", "https://example.com/a.b?c=1", "user@mail.com",
    "—", "-", "–", "What?!", "wait...", "so…", '"Quote."', '"Hi,"', "(Really?)", "Hello.", "Stop!",
    "Why?", "end.", "one,", "two;", "three:", "supercalifragilisticexpialidocious",
    "e\u0301te\u0301", "ABCABCABCABCABCABC", "12345678901234567890",
]  # fmt: skip
SEPARATORS = [" ", " ", " ", " ", "  ", "\n", "\n\n", "\t", ", ", ". ", "! ", "? ", "; ", ": ", " — ", " - "]

texts_strategy = st.builds(
    lambda lead, items, tail: lead + "".join(word + sep for word, sep in items) + tail,
    st.sampled_from(["", " ", "\n"]),
    st.lists(st.tuples(st.sampled_from(VOCABULARY), st.sampled_from(SEPARATORS)), max_size=40),
    st.sampled_from(["", " ", "\n", "."]),
)
options_strategy = st.fixed_dictionaries(
    {
        "first_unit_min_words": st.integers(1, 4),
        "max_unit_chars": st.sampled_from([6, 15, 40, 280]),
    }
)
PROPERTY = settings(max_examples=400, deadline=None, derandomize=True)


def split_at(text: str, cuts: list[int]) -> list[str]:
    edges = [0, *sorted({cut % (len(text) + 1) for cut in cuts}), len(text)]
    return [text[a:b] for a, b in pairwise(edges) if b > a]


def check_covers_input(text: str, units: Sequence[Unit], max_unit_chars: int) -> None:
    """Units are the input in order, verbatim and stripped, none over max_unit_chars, each cut at
    whitespace, or inside a word only where that word alone is longer than max_unit_chars."""
    position = 0
    in_word = False  # the last unit ended inside a word
    for index, unit in enumerate(units):
        assert unit.index == index
        assert unit.text and unit.text == unit.text.strip()
        assert len(unit.text) <= max_unit_chars
        start = len(text) - len(text[position:].lstrip())
        assert text.startswith(unit.text, start)
        assert start == 0 or text[start - 1].isspace() or in_word
        position = start + len(unit.text)
        in_word = position < len(text) and not text[position].isspace()
        if in_word:
            word_start = len(text[:position]) - len(text[:position].split()[-1])
            word_end = position + len(text[position:].split()[0])
            assert word_end - word_start > max_unit_chars
            assert not unicodedata.category(text[position]).startswith("M")  # not inside a cluster
    assert text[position:].strip() == ""


@PROPERTY
@given(text=texts_strategy, cuts=st.lists(st.integers(0, 10_000), max_size=30), options=options_strategy)
def test_any_token_split_gives_the_same_units(text: str, cuts: list[int], options: dict[str, int]) -> None:
    """Without time advancing, any split of a text into tokens gives the units of the whole text."""
    assert segment(split_at(text, cuts), **options) == segment([text], **options)


@PROPERTY
@given(text=texts_strategy, cuts=st.lists(st.integers(0, 10_000), max_size=30), options=options_strategy)
def test_units_hold_every_word_once_cut_only_at_whitespace(
    text: str, cuts: list[int], options: dict[str, int]
) -> None:
    """The units hold the input verbatim, cut inside a word only where it does not fit in a unit."""
    check_covers_input(text, segment(split_at(text, cuts), **options), options["max_unit_chars"])


@PROPERTY
@given(
    text=texts_strategy,
    cuts=st.lists(st.integers(0, 10_000), max_size=30),
    options=options_strategy,
    steps=st.lists(st.sampled_from([0.0, 0.01, 0.1, 0.2, 0.7]), min_size=1),
    polls=st.lists(st.booleans(), min_size=1),
)
def test_holds_never_lose_repeat_or_split_words(
    text: str, cuts: list[int], options: dict[str, int], steps: list[float], polls: list[bool]
) -> None:
    """With time advancing and polls firing holds, units still cover the input at word boundaries."""
    seg = Segmenter(**options)
    now = 0.0
    for i, token in enumerate(split_at(text, cuts)):
        now += steps[i % len(steps)]
        if polls[i % len(polls)]:
            deadline = seg.next_deadline_s()
            seg.poll(now)
            if deadline is not None and now >= deadline:
                assert seg.next_deadline_s() is None
        seg.feed(token, now)
    seg.poll(now + 1.0)
    seg.flush()
    check_covers_input(text, seg.units_ready(), options["max_unit_chars"])


# -- cut_words: the session's guard against a listener running dry ---------------------------------


def test_cut_words_speaks_complete_words_and_keeps_the_partial_one() -> None:
    """cut_words() makes a HOLD unit of the complete words; the unfinished word stays buffered."""
    seg = Segmenter()
    seg.feed("Right, ", 0.0)
    assert [u.text for u in seg.units_ready()] == ["Right,"]
    seg.feed("the train leaves at sev", 0.0)
    assert seg.complete_words == 4
    assert seg.cut_words() is True
    assert [(u.text, u.boundary) for u in seg.units_ready()] == [("the train leaves at", Boundary.HOLD)]
    assert seg.buffered_chars == len("sev") and not seg.cut_words()


def test_cut_words_at_an_undecided_sentence_end_is_a_sentence() -> None:
    """A cut right after 'seven. ' (next letter not seen yet) ends the unit as a SENTENCE."""
    seg = Segmenter()
    seg.feed("Right, ", 0.0)
    seg.units_ready()
    seg.feed("It leaves at seven. ", 0.0)
    assert seg.units_ready() == []
    assert seg.cut_words()
    assert [(u.text, u.boundary) for u in seg.units_ready()] == [("It leaves at seven.", Boundary.SENTENCE)]
