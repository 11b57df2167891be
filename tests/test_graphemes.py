"""Tests for tts_service.engine.graphemes: clusters counted, cut between, marks folded."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tts_service.engine import graphemes
from tts_service.engine.graphemes import MAX_MARKS, count, cut_before, end_of, extends, fold_marks

ACUTE = "\u0301"
GRAVE = "\u0300"


@pytest.mark.parametrize(
    ("text", "clusters"),
    [
        ("", 0),
        ("abc", 3),
        ("e" + ACUTE, 1),
        (("e" + ACUTE) * 5, 5),
        ("a" + ACUTE * 40, 1),
        (ACUTE + "a", 2),  # a mark with nothing before it is a cluster of its own
        ("thumbs \U0001f44d\U0001f3fd", 8),  # a skin tone joins its emoji
        ("नमस्ते", 4),  # न, म, स + virama, त + vowel sign: marks join their consonant
    ],
)
def test_count_counts_clusters_not_code_points(text: str, clusters: int) -> None:
    assert count(text) == clusters


def test_cut_before_falls_between_clusters() -> None:
    text = ("e" + ACUTE) * 4  # e´e´e´e´
    assert cut_before(text, 3) == 2  # index 3 is a mark: the cut moves back to before the "e"
    assert cut_before(text, 4) == 4
    assert cut_before(text, 100) == len(text)
    assert cut_before("a" + ACUTE * 9, 4) == 4  # one cluster longer than the limit: cut at the limit


@given(text=st.text(alphabet="ab \u0301\u0300\u20dd", min_size=1, max_size=40), limit=st.integers(1, 20))
def test_cut_before_is_in_range_and_between_clusters_when_it_can_be(text: str, limit: int) -> None:
    cut = cut_before(text, limit)
    if len(text) <= limit:
        assert cut == len(text)
        return
    assert 0 < cut <= limit
    if any(not extends(text[i]) for i in range(1, limit + 1)):
        assert not extends(text[cut])
    else:
        assert cut == limit


@given(text=st.text(alphabet="ab \u0301\u0300", max_size=30), clusters=st.integers(-1, 35))
def test_end_of_holds_exactly_that_many_clusters(text: str, clusters: int) -> None:
    end = end_of(text, clusters)
    assert count(text[:end]) == min(max(clusters, 0), count(text))
    assert end in (0, len(text)) or not extends(text[end])


@pytest.mark.parametrize(
    ("text", "folded"),
    [
        ("plain ascii", "plain ascii"),
        ("e" + ACUTE, "\u00e9"),  # composed
        (("e" + ACUTE) * 3, "\u00e9" * 3),
        (ACUTE + "a", "a"),  # nothing to sit on: dropped
        ("a " + ACUTE * 5 + "b", "a b"),
        ("x" + ACUTE * 50, "x" + ACUTE * MAX_MARKS),  # stacked marks: a few kept
        ("vie\u0323\u0302t", "vi\u1ec7t"),  # two marks compose into one precomposed letter
    ],
)
def test_fold_marks(text: str, folded: str) -> None:
    assert fold_marks(text) == folded


@given(st.text(max_size=60))
def test_fold_marks_never_raises_and_never_grows_the_clusters(text: str) -> None:
    folded = fold_marks(text)
    assert count(folded) <= count(text)
    assert fold_marks(folded) == folded
    run = 0
    for char in folded:
        run = run + 1 if extends(char) else 0
        assert run <= MAX_MARKS


def test_module_imports_only_the_standard_library() -> None:
    tree = ast.parse(Path(graphemes.__file__).read_text(encoding="utf-8"))
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            imported.add(node.module or "")
    assert imported <= {"__future__", "unicodedata"}
