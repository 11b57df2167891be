"""Shapes each unit's audio before it joins the turn: trim, fade, level, gap.

Naive sentence stitching clicks and jumps in volume: every model chunk starts with its own lead
silence, ends at its own level, and the cut lands wherever the array ends. Here each unit

* is trimmed to its speech (the model's hint, refined by energy), keeping a small margin;
* gets a short raised-cosine fade in and out, so every join passes through zero;
* is levelled to the turn's loudness anchor (the first unit's active level), within +-6 dB;
* is preceded by a pause whose length follows the punctuation that ended the previous unit.

A turn's first unit may also be shaped as its audio arrives (``open``, then ``more`` for each
piece, from a ``StreamingUnitBackend``), so its first frame can go out before the model has made
the rest. Its level sets the turn's anchor (gain 0, as for any first unit), so nothing waits for
the whole unit; its start is found in the audio so far (the threshold follows the loudest window
so far, not the whole unit's); audio after the speech so far waits for the next piece; its end,
found once the last piece is in, is never before what was already handed out (plus the fade
out). Otherwise it is trimmed and faded as ``shape`` would.

Pure numpy on float32 arrays at the model's rate; no I/O, no clocks.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

import numpy as np

from tts_service.dsp import F32, raised_cosine, window_rms
from tts_service.engine.ports import UnitAudio
from tts_service.engine.segmenter import Boundary
from tts_service.engine.types import WordMark

_DEFAULT_GAPS_MS: Mapping[Boundary, int] = MappingProxyType(
    {
        Boundary.SENTENCE: 240,
        Boundary.PARAGRAPH: 320,
        Boundary.CLAUSE: 120,
        Boundary.LENGTH: 70,
        Boundary.HOLD: 50,
        Boundary.FLUSH: 240,
    }
)


@dataclass(frozen=True, slots=True)
class JoinPolicy:
    """How units are trimmed and joined; times in milliseconds, levels in dB."""

    fade_in_ms: float = 4.0
    fade_out_ms: float = 12.0
    lead_margin_ms: float = 8.0
    tail_margin_ms: float = 40.0
    #: a 5 ms window counts as speech above this level relative to the unit's loudest window
    gate_db: float = -42.0
    #: and above this absolute floor (dBFS), so near-silent units are not amplified noise
    floor_dbfs: float = -62.0
    max_gain_db: float = 6.0
    peak_ceiling: float = 0.97
    gap_ms: Mapping[Boundary, int] = field(default_factory=lambda: _DEFAULT_GAPS_MS)


@dataclass(slots=True, eq=False)
class _OpenUnit:
    """A unit being shaped as its pieces arrive: its audio so far and where its output stands."""

    audio: F32
    hint_start: int
    hint_end: int
    words: tuple[WordMark, ...]
    gap: int
    #: where the speech (and the output) starts, once found
    start: int | None = None
    #: unit samples handed out so far (from ``start``)
    emitted: int = 0


@dataclass(frozen=True, slots=True, eq=False)
class ShapedUnit:
    """A unit ready to append: ``lead_silence`` samples of silence, then ``samples``.

    Word positions are relative to the first sample of ``samples`` (model rate).
    """

    lead_silence: int
    samples: F32
    words: tuple[WordMark, ...]
    gain_db: float


class UnitConditioner:
    """Trims, fades and levels the units of one turn; call ``new_turn`` between turns."""

    def __init__(self, sample_rate: int, policy: JoinPolicy | None = None) -> None:
        self.sample_rate = sample_rate
        self.policy = policy or JoinPolicy()
        self._window = max(1, sample_rate // 200)  # 5 ms
        self._anchor_rms: float | None = None
        self._previous: Boundary | None = None
        self._open: _OpenUnit | None = None

    @property
    def at_turn_start(self) -> bool:
        """No unit has set the turn's level yet: the next unit keeps its own, so it may be
        shaped as it arrives (``open``)."""
        return self._anchor_rms is None

    def new_turn(self) -> None:
        """Forget the loudness anchor and the previous join."""
        self._anchor_rms = None
        self._previous = None
        self._open = None

    def restart_joins(self) -> None:
        """The next unit follows a discard: no pause before it, but keep the turn's level."""
        self._previous = None
        self._open = None

    def _ms(self, ms: float) -> int:
        return round(ms * self.sample_rate / 1000.0)

    def shape(self, unit: UnitAudio, boundary: Boundary) -> ShapedUnit:
        """Shape one unit's audio; ``boundary`` is why this unit ended (sets the next pause)."""
        p = self.policy
        gap = self._join(boundary)
        audio = unit.samples.astype(np.float32, copy=False)
        if len(audio) == 0:
            return ShapedUnit(gap, audio, (), 0.0)

        start, end = self._speech_span(audio, unit.speech_start, unit.speech_end)
        if end <= start:
            return ShapedUnit(gap, np.zeros(0, np.float32), (), 0.0)
        out = audio[start:end].copy()

        gain_db = self._level(out)
        fade_in = raised_cosine(min(self._ms(p.fade_in_ms), len(out) // 2))
        fade_out = raised_cosine(min(self._ms(p.fade_out_ms), len(out) // 2))[::-1]
        out[: len(fade_in)] *= fade_in
        if len(fade_out):
            out[len(out) - len(fade_out) :] *= fade_out

        return ShapedUnit(gap, out, _clamped(unit.words, start, len(out)), gain_db)

    def _join(self, boundary: Boundary) -> int:
        """The pause before a unit (after the previous one's boundary); ``boundary`` is its own."""
        gap = 0 if self._previous is None else self._ms(self.policy.gap_ms.get(self._previous, 0))
        self._previous = boundary
        return gap

    def open(self, unit: UnitAudio, boundary: Boundary) -> ShapedUnit | None:
        """Begin a unit whose audio comes in pieces (``unit.samples`` is the first); call only
        ``at_turn_start``. Returns what can be handed out now (None: no speech found yet); the
        first result carries the pause before the unit and its words."""
        gap = self._join(boundary)
        audio = unit.samples.astype(np.float32, copy=True)
        self._open = _OpenUnit(audio, unit.speech_start, unit.speech_end, unit.words, gap)
        return self._advance(last=False)

    def more(self, piece: F32, *, last: bool) -> ShapedUnit | None:
        """The next piece of the open unit; ``last`` ends it (trim, fade out, the turn's level)."""
        unit = self._open
        if unit is None:
            return None
        unit.audio = np.concatenate([unit.audio, piece.astype(np.float32, copy=False)])
        return self._advance(last=last)

    def abandon(self) -> None:
        """The open unit's audio stops here (its model failed): its level so far sets the turn's."""
        unit, self._open = self._open, None
        if unit is not None and unit.start is not None and unit.emitted:
            self._level(unit.audio[unit.start : unit.start + unit.emitted].copy())

    def _advance(self, *, last: bool) -> ShapedUnit | None:
        unit = self._open
        assert unit is not None
        if last:
            self._open = None
        audio = unit.audio
        first = unit.start is None
        if unit.start is None:
            span = self._speech_span(audio, unit.hint_start, unit.hint_end)
            if span[1] <= span[0]:
                return ShapedUnit(unit.gap, np.zeros(0, np.float32), (), 0.0) if last else None
            unit.start = span[0]
        start = unit.start
        p = self.policy
        fade_out_len = self._ms(p.fade_out_ms)
        # Up to the speech's end so far and its margin, less the fade out it may end with (the
        # margin may reach past the audio so far): the rest waits for the next piece, which goes
        # on speaking or ends the unit there.
        _, trimmed = self._speech_span(audio, unit.hint_start, unit.hint_end, clamp=False)
        end = min(len(audio), max(trimmed - fade_out_len, start + unit.emitted))
        if last:
            end = min(len(audio), max(trimmed, start + unit.emitted + fade_out_len))
        out = audio[start + unit.emitted : end].copy()
        if first:
            fade_in = raised_cosine(min(self._ms(p.fade_in_ms), len(out) // 2))
            out[: len(fade_in)] *= fade_in
        if last:
            fade_out = raised_cosine(min(fade_out_len, (end - start) // 2, len(out)))[::-1]
            if len(fade_out):
                out[len(out) - len(fade_out) :] *= fade_out
            self._level(audio[start:end].copy())  # the turn's anchor (this unit's gain is 0)
        unit.emitted = end - start
        if not first:
            return ShapedUnit(0, out, (), 0.0)
        return ShapedUnit(unit.gap, out, _clamped(unit.words, start, max(0, unit.hint_end - start)), 0.0)

    def _speech_span(
        self, audio: F32, hint_start: int, hint_end: int, *, clamp: bool = True
    ) -> tuple[int, int]:
        """Where speech begins and ends: energy-gated, searched around the model's hint (the end
        with its margin, which ``clamp=False`` lets reach past the audio)."""
        p = self.policy
        win = self._window
        rms = window_rms(audio, win)
        if len(rms) == 0 or float(rms.max()) <= 0.0:
            return 0, 0
        threshold = max(float(rms.max()) * 10 ** (p.gate_db / 20), 10 ** (p.floor_dbfs / 20))
        active = np.flatnonzero(rms > threshold)
        if len(active) == 0:
            return 0, 0
        # The hint bounds the search so a breath inside the lead pad is not mistaken for speech.
        search_from = max(0, hint_start - self._ms(60)) // win
        onset_candidates = active[active >= search_from]
        onset = int(onset_candidates[0] if len(onset_candidates) else active[0]) * win
        offset = int(active[-1] + 1) * win
        start = max(0, onset - self._ms(p.lead_margin_ms))
        end = offset + self._ms(p.tail_margin_ms)
        return start, min(len(audio), end) if clamp else end

    def _level(self, out: F32) -> float:
        """Scale ``out`` in place toward the turn's anchor; returns the gain applied in dB."""
        p = self.policy
        rms = window_rms(out, self._window)
        if len(rms) == 0:
            return 0.0
        threshold = max(float(rms.max()) * 10 ** (p.gate_db / 20), 10 ** (p.floor_dbfs / 20))
        voiced = rms[rms > threshold]
        if len(voiced) == 0:
            return 0.0
        level = float(np.sqrt(np.mean(voiced.astype(np.float64) ** 2)))
        if self._anchor_rms is None:
            self._anchor_rms = level
            return 0.0
        gain_db = 20 * math.log10(self._anchor_rms / level)
        gain_db = max(-p.max_gain_db, min(p.max_gain_db, gain_db))
        gain = 10 ** (gain_db / 20)
        peak = float(np.max(np.abs(out)))
        if peak * gain > p.peak_ceiling:
            gain = p.peak_ceiling / peak
            gain_db = 20 * math.log10(gain)
        out *= np.float32(gain)
        return gain_db


def _clamped(words: tuple[WordMark, ...], start: int, limit: int) -> tuple[WordMark, ...]:
    """``words`` counted from ``start``, each edge within ``0..limit``."""
    return tuple(
        WordMark(w.word, min(max(w.start_sample - start, 0), limit), min(max(w.end_sample - start, 0), limit))
        for w in words
    )
