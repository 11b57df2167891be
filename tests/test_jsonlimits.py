"""A client's JSON is refused past one nesting bound on every Python (3.13's parser took 5,000
levels that 3.11's refused)."""

from __future__ import annotations

import pytest

from tts_service.jsonlimits import MAX_DEPTH, NestedTooDeeply, depth, loads


def test_depth_counts_brackets_outside_strings_only() -> None:
    assert depth('{"a": [1, {"b": []}]}') == 4
    assert depth('{"text": "[[[[{{{{ \\" ]]]] [[["}') == 1
    assert depth("[]" * 100) == 1


def test_the_bound_is_inclusive_and_every_shape_past_it_is_refused() -> None:
    assert loads("[" * MAX_DEPTH + "]" * MAX_DEPTH) is not None
    for deep in (MAX_DEPTH + 1, 5_000, 50_000):
        with pytest.raises(NestedTooDeeply, match="nested too deeply"):
            loads("[" * deep + "]" * deep)
        with pytest.raises(NestedTooDeeply):
            loads('{"x": ' + "{" * deep)  # unterminated too: refused for its depth, not parsed


def test_a_nested_too_deeply_error_is_a_recursion_error_as_the_parsers_own_is() -> None:
    with pytest.raises(RecursionError):
        loads(b"[" * 5_000)


def test_bytes_and_ordinary_json_read_as_json_loads_reads_them() -> None:
    assert loads(b'{"cmd": "inject", "text": "[[[ not nesting ]]]"}') == {
        "cmd": "inject",
        "text": "[[[ not nesting ]]]",
    }
    assert loads('{"a": "\\u00e9"}'.encode("utf-16")) == {"a": "é"}
    with pytest.raises(ValueError):
        loads(b"\xff{}")
