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
