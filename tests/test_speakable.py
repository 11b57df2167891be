"""The speakable stage: code blocks left out across units, text cleaned, spoken forms where needed."""

from __future__ import annotations

from toy_backends import ToneBackend, ToyFrameBackend

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


def test_markdown_goes_and_spoken_forms_come_only_for_models_without_their_own() -> None:
    """The tone model reads numbers itself; the frame toy needs them in words, and keeps [S1] tags."""
    own = SpeakableStage(ToneBackend.capabilities)
    needs = SpeakableStage(ToyFrameBackend.capabilities)
    assert [u.text for u in own.take(units("**Only** $3.50 🎉"))] == ["Only $3.50"]
    (spoken,) = needs.take(units("[S1] **Only** $3.50"))
    assert spoken.text.startswith("[S1]") and "three dollars" in spoken.text and "$" not in spoken.text


def test_a_unit_with_nothing_speakable_is_dropped() -> None:
    """Emoji and markup alone are not a unit."""
    stage = SpeakableStage(ToneBackend.capabilities)
    assert stage.take(units("🎉🎉", "**", "Fine.")) == [Unit("Fine.", 2, Boundary.SENTENCE)]


def test_marks_are_folded_long_numbers_grouped_and_long_words_cut_for_every_model() -> None:
    """A letter and its combining accent reach the model as one letter; an identifier's digits in
    groups (in words where the model needs them); a word longer than a model should read, in pieces."""
    own = SpeakableStage(ToneBackend.capabilities)
    needs = SpeakableStage(ToyFrameBackend.capabilities)
    (folded,) = own.take(units("Cafe\u0301 \u0301" + "e\u0301" * 60))
    assert folded.text == "Caf\u00e9 " + "\u00e9" * 48 + " " + "\u00e9" * 12
    (grouped,) = own.take(units("Ref " + "7" * 40 + "."))
    assert grouped.text == "Ref " + ", ".join(["7 7 7 7"] * 10) + "."
    (words,) = needs.take(units("Ref " + "7" * 20 + "."))
    assert words.text == "Ref " + ", ".join(["seven seven seven seven"] * 5) + "."
