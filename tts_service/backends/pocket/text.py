"""Text for Pocket TTS: units the model speaks one at a time, and where their words fall in the audio.

Pocket TTS reads a whole sentence before it speaks it: a unit's text tokens enter the KV cache in
one prefill, then audio latents follow until the model signals the end (EOS) and a few frames of
tail. Long text is split with the library's own sentence chunker and prompt preparation
(capitalised first letter, closing punctuation), so each unit is what the model was trained on.

Word times (``WordClock``) follow from when the model consumes each unit's tokens: the unit's
first frame is exact (its tokens are consumed in the prefill just before it), and so is the frame
where the model reports EOS (its speech ends there). Inside a unit there is no per-token signal,
so each source word is placed by its share of the unit's tokens at a speaking rate learned per
call (frames per token, an average over the units the call has finished). Word starts are
therefore exact at unit boundaries to one frame (80 ms) and approximate inside a unit, typically
within a few hundred milliseconds; a word never starts after its unit's EOS frame. This module is
pure Python over token counts: it never runs the model.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from tts_service.backends.pocket.pocket_tts_compat import max_gen_frames
from tts_service.engine.types import WordMark

#: frames per text token before a call has finished a unit (about 3.4 tokens per second)
INITIAL_FRAMES_PER_TOKEN = 3.7
#: weight of the newest finished unit in the learned speaking rate
RATE_SMOOTHING = 0.3
_RATE_RANGE = (1.0, 12.0)


@dataclass(frozen=True, slots=True)
class PocketUnit:
    """One chunk of text as the model will read it, with the source words it covers."""

    text: str
    tokens: tuple[int, ...]
    words: tuple[str, ...]
    word_tokens: tuple[int, ...]
    frames_after_eos: int
    max_frames: int


def prepare_units(model: Any, text: str, *, max_tokens: int) -> list[PocketUnit]:
    """Split ``text`` the way ``TTSModel.generate_audio_stream`` does; source words go to their chunk."""
    from pocket_tts.models.text_chunking import prepare_text_prompt, split_into_best_sentences

    words = text.split()
    if not words:
        return []
    tokenizer = model.flow_lm.conditioner.tokenizer
    options = {
        "remove_semicolons": model.remove_semicolons,
        "append_terminal_punctuation": model.append_terminal_punctuation,
        "capitalize_first_letter": model.capitalize_first_letter,
        "replace_characters": model.replace_characters,
    }
    pad = model.pad_with_spaces_for_short_inputs
    try:
        chunks = split_into_best_sentences(tokenizer, text, max_tokens, pad, **options)
    except ValueError:  # nothing speakable once the library's replacements ran
        return []
    frame_rate = float(model.config.mimi.frame_rate)
    recommended = model.model_recommended_frames_after_eos
    units: list[PocketUnit] = []
    taken = 0
    for i, chunk in enumerate(chunks):
        try:
            prepared, eos_guess = prepare_text_prompt(chunk, pad, **options)
        except ValueError:
            continue
        tokens = tuple(int(t) for t in tokenizer.encode(prepared))
        if not tokens:
            continue
        count = len(words) - taken if i == len(chunks) - 1 else min(len(chunk.split()), len(words) - taken)
        mine = tuple(words[taken : taken + count])
        taken += count
        # the library's defaults: the config's recommendation, else its guess plus two frames
        after = recommended if recommended is not None else eos_guess + 2
        units.append(
            PocketUnit(
                text=prepared,
                tokens=tokens,
                words=mine,
                word_tokens=tuple(max(1, len(tokenizer.encode(w))) for w in mine),
                # a unit that ended on its EOS frame would need a step with no audio: keep one
                frames_after_eos=max(1, int(after)),
                max_frames=max_gen_frames(len(tokens), frame_rate),
            )
        )
    return units


def learn_rate(current: float, eos_frame: int, token_count: int) -> float:
    """The speaking rate after a unit whose speech ended at ``eos_frame``."""
    measured = eos_frame / max(1, token_count)
    lo, hi = _RATE_RANGE
    return min(hi, max(lo, (1 - RATE_SMOOTHING) * current + RATE_SMOOTHING * measured))


class WordClock:
    """Places one unit's words on its frames and hands each mark out once, at its starting frame."""

    def __init__(self, words: Sequence[str], word_tokens: Sequence[int], frames_per_token: float, frame: int):
        self._words = list(words)
        self._frame = frame
        self._spans: list[tuple[float, float]] = []
        pos = 0.0
        for n in word_tokens:
            self._spans.append((pos, pos + n * frames_per_token))
            pos += n * frames_per_token
        self._next = 0

    @property
    def pending(self) -> int:
        """Words not handed out yet."""
        return len(self._words) - self._next

    def end_speech(self, frame_index: int) -> None:
        """The model reported EOS at ``frame_index``: words not started yet start within this frame."""
        rest = self._spans[self._next :]
        if not rest:
            return
        first = min(rest[0][0], float(frame_index))
        total = rest[-1][1] - first
        limit = float(frame_index + 1)
        scale = (limit - first) / total if total > limit - first else 1.0
        self._spans[self._next :] = [
            (first + (a - first) * scale, first + (b - first) * scale) for a, b in rest
        ]

    def marks(self, frame_index: int, *, flush: bool = False) -> tuple[WordMark, ...]:
        """Marks of the words starting in frame ``frame_index`` (all the rest when ``flush``).

        Positions are samples from the start of that frame; a mark may end in a later frame.
        """
        out: list[WordMark] = []
        base = frame_index * self._frame
        while self._next < len(self._words):
            start, end = self._spans[self._next]
            if not flush and start >= frame_index + 1:
                break
            s = max(0, round(start * self._frame) - base)
            if flush:
                s = min(s, self._frame - 1)
            e = max(s, round(end * self._frame) - base)
            out.append(WordMark(self._words[self._next], s, e))
            self._next += 1
        return tuple(out)
