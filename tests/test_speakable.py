"""The speakable stage: code blocks left out across units, text cleaned, spoken forms where needed."""

from __future__ import annotations

import logging
from typing import Any

import pytest
from toy_backends import ToneBackend, ToyFrameBackend

from tts_service.engine import reading
from tts_service.engine.reading import english
from tts_service.engine.segmenter import Boundary, Unit
from tts_service.engine.speakable import SpeakableStage


def units(*texts: str) -> list[Unit]:
    return [Unit(t, i, Boundary.SENTENCE) for i, t in enumerate(texts)]


def test_a_code_block_is_left_out_even_when_its_fences_arrive_as_units_of_their_own() -> None:
    """Everything between two fence units is dropped; the block can span any number of units."""
    stage = SpeakableStage(ToneBackend.capabilities)
    taken = stage.take(units("Here you go:", "```python", "print('x')", "x = 1", "```", "That is all."))
    assert [u.text for u in taken] == ["Here you go:", "That is all."]
    assert [u.index for u in taken] == [0, 5]


def test_reset_leaves_an_unclosed_code_block() -> None:
    """An answer cut inside a code block does not silence the next answer."""
    stage = SpeakableStage(ToneBackend.capabilities)
    stage.take(units("```", "secret()"))
    assert stage.in_code_block
    stage.reset()
    assert [u.text for u in stage.take(units("Hello."))] == ["Hello."]


def test_markdown_goes_and_every_model_gets_the_spoken_form_with_its_written_tokens() -> None:
    """One reading for every backend; [S1] tags stay for the models that speak them."""
    own = SpeakableStage(ToneBackend.capabilities)
    tags = SpeakableStage(ToyFrameBackend.capabilities)
    (unit,) = own.take(units("**Only** $3.50 🎉"))
    assert unit.text == "Only three dollars and fifty cents"
    assert unit.written == (("Only", 1), ("$3.50", 5))
    (spoken,) = tags.take(units("[S1] **Only** $3.50"))
    assert spoken.text == "[S1] Only three dollars and fifty cents"


def test_a_unit_with_nothing_speakable_is_dropped() -> None:
    """Emoji and markup alone are not a unit."""
    stage = SpeakableStage(ToneBackend.capabilities)
    assert stage.take(units("🎉🎉", "**", "Fine.")) == [Unit("Fine.", 2, Boundary.SENTENCE, (("Fine.", 1),))]


def test_marks_are_folded_long_numbers_grouped_and_long_words_cut_for_every_model() -> None:
    """A letter and its combining accent reach the model as one letter; an identifier's digits in
    groups of four; a word longer than a model should read, in pieces that its written token counts."""
    for backend in (ToneBackend, ToyFrameBackend):
        stage = SpeakableStage(backend.capabilities)
        (folded,) = stage.take(units("Cafe\u0301 \u0301" + "e\u0301" * 60))
        assert folded.text == "Caf\u00e9 " + "\u00e9" * 48 + " " + "\u00e9" * 12
        assert folded.written == (("Caf\u00e9", 1), ("\u00e9" * 60, 2))
        (grouped,) = stage.take(units("Ref " + "7" * 40 + "."))
        assert grouped.text == "Ref " + ", ".join(["seven seven seven seven"] * 10) + "."
        assert grouped.written == (("Ref", 1), ("7" * 40 + ".", 40))


def test_a_language_without_a_reader_still_reads_long_numbers_in_groups() -> None:
    """No reader for the language: the digits reach the model in groups, never as one quantity."""
    (grouped,) = SpeakableStage(ToneBackend.capabilities, language="hi").take(units("Ref " + "7" * 40 + "."))
    assert grouped.text == "Ref " + ", ".join(["7 7 7 7"] * 10) + "."
    # a language read by ``reading.general`` says the grouped digits in its own words
    (french,) = SpeakableStage(ToneBackend.capabilities, language="fr").take(units("Ref " + "7" * 40 + "."))
    assert french.text == "Ref " + ", ".join(["sept sept sept sept"] * 10) + "."


def test_a_quote_opened_in_an_earlier_clause_is_closed_after_a_number_not_read_as_inches() -> None:
    """The segmenter may cut the first clause off a quoted sentence; the quote is still open in the
    next unit, so '50".' closes it. A sentence's end forgets a quote an answer never closed."""
    stage = SpeakableStage(ToneBackend.capabilities)
    _, second = stage.take(
        [Unit('"Iowa St 74,', 0, Boundary.CLAUSE), Unit('Texas A&M 50".', 1, Boundary.SENTENCE)]
    )
    assert "inch" not in second.text and second.text.endswith('fifty".')
    stage.take([Unit('He said "yes.', 2, Boundary.SENTENCE)])
    (measure,) = stage.take([Unit('The screen is 27".', 3, Boundary.SENTENCE)])
    assert measure.text == "The screen is twenty-seven inches."


def test_a_reader_that_fails_on_a_unit_logs_it_and_the_unit_is_spoken_as_written(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """A bug in the English reader (text nobody foresaw) costs neither the unit nor the turn: the
    unit goes to the model as written, with its written tokens for the marks, and the next unit is
    read as usual."""
    calls = {"n": 0}
    real = english.read_unit_tokens

    def fails_once(*args: Any, **kwargs: Any) -> Any:
        calls["n"] += 1
        if calls["n"] == 1:
            raise ValueError("invalid literal for int() with base 10: '350–400'")
        return real(*args, **kwargs)

    monkeypatch.setattr(reading, "read_unit_tokens", fails_once)
    stage = SpeakableStage(ToneBackend.capabilities)
    with caplog.at_level(logging.ERROR, logger="warmline.engine"):
        taken = stage.take(units("It covers 350–400 sq. ft.", "Only $3.50."))
    assert [u.text for u in taken] == ["It covers 350–400 sq. ft.", "Only three dollars and fifty cents."]
    assert taken[0].written == (("It", 1), ("covers", 1), ("350–400", 1), ("sq.", 1), ("ft.", 1))
    assert "350–400" in caplog.text and "read as written" in caplog.text


def test_a_unit_is_read_after_the_last_words_of_its_sentences_earlier_unit() -> None:
    """The first clause is cut at its comma for speed: "Friday," then "7/10, with a crew." The
    second is read after "Friday," as the whole sentence would be (a date, not "seven out of
    ten"); a new sentence starts with no words before it."""
    stage = SpeakableStage(ToneBackend.capabilities)
    first, second = stage.take(
        [
            Unit("Scheduled for Friday,", 0, Boundary.CLAUSE),
            Unit("7/10, with a crew.", 1, Boundary.SENTENCE),
        ]
    )
    assert first.text == "Scheduled for Friday,"
    assert second.text == "July tenth, with a crew."
    assert second.written == (("7/10,", 2), ("with", 1), ("a", 1), ("crew.", 1))
    stage.take([Unit("See you Friday.", 2, Boundary.SENTENCE)])
    (score,) = stage.take([Unit("7/10 is the score.", 3, Boundary.SENTENCE)])
    assert score.text == "seven out of ten is the score."
