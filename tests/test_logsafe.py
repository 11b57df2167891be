"""``transports.logsafe``: a client string can never start a new log line or pass for an escape."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st

from transports.logsafe import loggable, loggable_names

#: characters a terminal or a log reader may take as a line break
LINE_BREAKS = "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        ("MZ1234", "MZ1234"),
        ("two words", "two words"),
        ("MZ1\n2024-01-01 INFO forged", "MZ1\\n2024-01-01 INFO forged"),
        ("a\rb\tc\x00d\x1b[31m", "a\\rb\\tc\\x00d\\x1b[31m"),
        ("sep\u2028arator\u2029 nel\x85", "sep\\u2028arator\\u2029 nel\\x85"),
        ("a\\nb", "a\\\\nb"),  # a backslash the client sent is not an escape in the log
        ("caf\u00e9 \u65e5\u672c", "caf\u00e9 \u65e5\u672c"),
    ],
)
def test_printable_text_is_kept_and_the_rest_is_escaped(raw: str, shown: str) -> None:
    assert loggable(raw) == shown


def test_long_text_is_cut_before_it_is_escaped() -> None:
    assert loggable("x" * 500, max_chars=10) == "xxxxxxx..."
    assert loggable("\n" * 500, max_chars=10) == "\\n" * 7 + "..."
    assert loggable(["not", "a string"]) == "['not', 'a string']"


def test_names_are_escaped_sorted_and_bounded() -> None:
    assert loggable_names({"b": "1", "a\nx": "2"}) == "a\\nx, b"
    assert loggable_names([]) == ""
    assert loggable_names([f"p{i:02}" for i in range(20)], max_names=2) == "p00, p01 and 18 more"


@given(st.text(max_size=300))
def test_no_client_string_yields_a_line_break_or_an_unprintable_character(raw: str) -> None:
    shown = loggable(raw)
    assert not any(char in shown for char in LINE_BREAKS)
    assert all(char.isprintable() for char in shown), [unicodedata.name(c, hex(ord(c))) for c in shown]
    assert len(shown) <= 10 * 200


@given(st.text(max_size=100))
def test_escaping_loses_nothing(raw: str) -> None:
    """Printable text and Python's escapes: the original comes back exactly (nothing is dropped)."""
    shown = loggable(raw, max_chars=1000)
    assert shown.encode("latin-1", "backslashreplace").decode("unicode_escape") == raw
