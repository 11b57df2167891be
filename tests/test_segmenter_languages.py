"""The segmenter in other scripts: CJK marks cut without spaces, Spanish opening marks stay with
their words, Arabic and Devanagari marks end clauses and sentences; token splits change nothing."""

from __future__ import annotations

import math
from collections.abc import Sequence
from itertools import pairwise

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tts_service.engine.segmenter import Boundary, Segmenter

B = Boundary


def segment(tokens: Sequence[str], **options: float) -> list[tuple[str, Boundary]]:
    seg = Segmenter(first_unit_hold_s=math.inf, tail_hold_s=math.inf, **options)  # type: ignore[arg-type]
    for token in tokens:
        seg.feed(token, 0.0)
    seg.flush()
    return [(unit.text, unit.boundary) for unit in seg.units_ready()]


ZH = "你好，我是小明。今天天气很好！你呢？「好的。」他说。"
ZH_UNITS = [
    ("你好，", B.CLAUSE),
    ("我是小明。", B.SENTENCE),
    ("今天天气很好！", B.SENTENCE),
    ("你呢？", B.SENTENCE),
    ("「好的。」", B.SENTENCE),
    ("他说。", B.FLUSH),
]


def test_chinese_marks_cut_inside_a_run_without_spaces() -> None:
    """The first clause at the full-width comma, then each sentence right after its mark; a
    closing bracket stays with the mark before it."""
    assert segment([ZH]) == ZH_UNITS


@pytest.mark.parametrize("size", [1, 2, 3, 5])
def test_chinese_cuts_do_not_depend_on_token_splits(size: int) -> None:
    assert segment([ZH[i : i + size] for i in range(0, len(ZH), size)]) == ZH_UNITS


@given(st.lists(st.integers(min_value=1, max_value=len(ZH) - 1), unique=True, max_size=12))
@settings(max_examples=80, deadline=None)
def test_any_split_of_chinese_gives_the_same_units(cuts: list[int]) -> None:
    bounds = [0, *sorted(cuts), len(ZH)]
    assert segment([ZH[a:b] for a, b in pairwise(bounds)]) == ZH_UNITS


def test_japanese_ideographic_comma_cuts_the_first_clause_only() -> None:
    text = "こんにちは、田中です。りんご、みかん、ぶどうがあります。よろしく。"
    assert segment([text]) == [
        ("こんにちは、", B.CLAUSE),
        ("田中です。", B.SENTENCE),
        ("りんご、みかん、ぶどうがあります。", B.SENTENCE),
        ("よろしく。", B.FLUSH),
    ]


def test_a_long_cjk_sentence_is_cut_at_its_commas() -> None:
    text = "甲乙丙丁，戊己庚辛，壬癸甲乙丙丁。"
    units = segment(["好。", text], max_unit_chars=12)
    assert units == [("好。", B.SENTENCE), ("甲乙丙丁，戊己庚辛，", B.LENGTH), ("壬癸甲乙丙丁。", B.FLUSH)]


def test_a_cjk_mark_before_a_space_or_newline_cuts_as_before() -> None:
    units = [("你好。", B.SENTENCE), ("再见。", B.PARAGRAPH), ("谢谢", B.FLUSH)]
    assert segment(["你好。 再见。\n谢谢"]) == units


def test_spanish_opening_marks_stay_with_the_words_after_them() -> None:
    assert segment(["Hola, ¿cómo estás? ¡Muy bien! Gracias."]) == [
        ("Hola,", B.CLAUSE),
        ("¿cómo estás?", B.SENTENCE),
        ("¡Muy bien!", B.SENTENCE),
        ("Gracias.", B.FLUSH),
    ]


def test_a_free_standing_opening_mark_is_never_cut_from_its_words() -> None:
    """ "¿ Qué": no cut after the mark, so no timer can speak it alone."""
    seg = Segmenter(first_unit_hold_s=math.inf, tail_hold_s=0.5)
    seg.feed("Hola. ", 0.0)
    seg.feed("¿ ", 0.0)
    assert seg.complete_words == 0
    assert [u.text for u in seg.units_ready()] == ["Hola."]
    seg.poll(10.0)
    assert seg.units_ready() == []
    seg.feed("Qué tal? ", 10.0)
    seg.flush()
    assert [u.text for u in seg.units_ready()] == ["¿ Qué tal?"]


def test_arabic_comma_and_question_mark() -> None:
    assert segment(["مرحبا، كيف حالك؟ أنا بخير؛ شكرا."]) == [
        ("مرحبا،", B.CLAUSE),
        ("كيف حالك؟", B.SENTENCE),
        ("أنا بخير؛ شكرا.", B.FLUSH),
    ]


def test_devanagari_danda_ends_sentences() -> None:
    assert segment(["नमस्ते, आप कैसे हैं। मैं ठीक हूँ॥ धन्यवाद।"]) == [
        ("नमस्ते,", B.CLAUSE),
        ("आप कैसे हैं।", B.SENTENCE),
        ("मैं ठीक हूँ॥", B.SENTENCE),
        ("धन्यवाद।", B.FLUSH),
    ]


def test_english_is_unchanged() -> None:
    assert segment(["Hello there, Dr. Smith. It costs $3.50. Bye!"]) == [
        ("Hello there,", B.CLAUSE),
        ("Dr. Smith.", B.SENTENCE),
        ("It costs $3.50.", B.SENTENCE),
        ("Bye!", B.FLUSH),
    ]


_MIXED = st.text(alphabet="你好a。！？，、」） \n.¿", max_size=40)


@given(_MIXED, st.lists(st.integers(min_value=1, max_value=39), unique=True, max_size=8))
@settings(max_examples=300, deadline=None)
def test_mixed_scripts_lose_nothing_and_ignore_token_splits(text: str, cuts: list[int]) -> None:
    bounds = [0, *sorted(c for c in cuts if c < len(text)), len(text)]
    whole = segment([text], max_unit_chars=12)
    split = segment([text[a:b] for a, b in pairwise(bounds)], max_unit_chars=12)
    assert split == whole
    assert "".join(t for t, _ in whole).replace(" ", "") == "".join(text.split())
    assert all(t.strip() == t and 0 < len(t) <= 12 for t, _ in whole)
