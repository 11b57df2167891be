"""One turn's audio at the output rate, handed out as exact 80 ms frames on demand.

Producers hand the session ``AudioChunk`` s (audio, the words in it, silence around it); the
session places each at the end of its turn's timeline with ``place``. Two clocks run through a
turn, both in output samples:

* the *content* position: where we are in the audio the model made;
* the *listener* position: samples handed out (``SpeechFrame.sample_offset``).

They differ only by the faded frames that end a pause: the fade frame plays a few milliseconds of
the remainder and then silence, and on resume the remainder continues from the cut (with a short
fade in), so no audio is lost. Word marks are stored in content samples and reported in listener
samples. Buffers hold at most what the session allowed to be synthesized ahead.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tts_service.dsp import F32, float_to_pcm16, raised_cosine
from tts_service.engine.types import SampleFormat, SpeechFrame, WordMark, frame_samples


@dataclass(frozen=True, slots=True, eq=False)
class AudioChunk:
    """Audio a producer made, at the output rate, for the session to place at the end of the turn.

    ``words`` are positioned from ``samples[0]``. ``lead_silence`` and ``tail_silence`` samples of
    silence go before and after it. ``unit`` marks the audio of one speakable unit (its span is
    kept for join analysis and plots); ``continues_unit`` says it is a later piece of the last
    unit placed (its span grows), for a unit that comes in pieces.
    """

    samples: F32
    words: tuple[WordMark, ...] = ()
    lead_silence: int = 0
    tail_silence: int = 0
    unit: bool = False
    continues_unit: bool = False


class Timeline:
    """The frames of one turn; not thread-safe (the session owns it)."""

    def __init__(
        self, turn_id: int, sample_rate: int, sample_format: SampleFormat, *, fade_ms: float = 10.0
    ) -> None:
        self.turn_id = turn_id
        self.sample_rate = sample_rate
        self.sample_format = sample_format
        self.frame_len = frame_samples(sample_rate)
        self._fade_len = max(1, int(sample_rate * fade_ms / 1000))
        self._buf = np.zeros(0, np.float32)
        self._base = 0  # content position of _buf[0]
        self._read = 0  # content position of the next sample to hand out
        self._listener = 0  # samples handed out
        self._frames = 0
        self._marks: list[tuple[int, int, str]] = []  # (content start, content end, word), not yet emitted
        self._emitted_words: list[WordMark] = []
        self._unit_spans: list[tuple[int, int]] = []

    # -- filling ------------------------------------------------------------------------------

    @property
    def content_end(self) -> int:
        return self._base + len(self._buf)

    @property
    def pending_samples(self) -> int:
        """Samples made but not yet handed out."""
        return self.content_end - self._read

    @property
    def pending_frames(self) -> int:
        return self.pending_samples // self.frame_len

    @property
    def emitted_samples(self) -> int:
        return self._listener

    @property
    def frames_emitted(self) -> int:
        return self._frames

    @property
    def unit_spans(self) -> tuple[tuple[int, int], ...]:
        """(start, end) content samples of each unit's audio, for join analysis and plots."""
        return tuple(self._unit_spans)

    def place(self, chunk: AudioChunk) -> None:
        """Add ``chunk`` (its lead silence, its audio and words, its tail silence) at the end."""
        self._append_silence(chunk.lead_silence)
        start = self.content_end
        self._append(chunk.samples, chunk.words)
        if chunk.unit and chunk.continues_unit and self._unit_spans:
            self._unit_spans[-1] = (self._unit_spans[-1][0], self.content_end)
        elif chunk.unit:
            self._unit_spans.append((start, self.content_end))
        self._append_silence(chunk.tail_silence)

    def _append(self, samples: F32, words: tuple[WordMark, ...] = ()) -> None:
        offset = self.content_end
        for w in words:
            self._marks.append((offset + w.start_sample, offset + w.end_sample, w.word))
        if len(samples):
            self._compact()
            self._buf = np.concatenate([self._buf, samples.astype(np.float32, copy=False)])

    def _append_silence(self, num_samples: int) -> None:
        if num_samples > 0:
            self._append(np.zeros(num_samples, np.float32))

    def _compact(self) -> None:
        drop = self._read - self._base
        if drop > 0:
            self._buf = self._buf[drop:]
            self._base = self._read

    # -- handing out --------------------------------------------------------------------------

    def pop_frame(self, *, allow_partial: bool = False) -> SpeechFrame | None:
        """The next whole frame, or None; ``allow_partial`` pads a short tail with silence."""
        pending = self.pending_samples
        if pending <= 0 or (pending < self.frame_len and not allow_partial):
            return None
        start = self._read - self._base
        chunk = self._buf[start : start + self.frame_len]
        if len(chunk) < self.frame_len:
            chunk = np.concatenate([chunk, np.zeros(self.frame_len - len(chunk), np.float32)])
        frame = self._make_frame(chunk, self._read, last_in_pause=False)
        self._read = min(self._read + self.frame_len, self.content_end)
        return frame

    def pop_fade_frame(self) -> SpeechFrame | None:
        """The frame that ends a pause: a short fade out of the remainder, then silence.

        The content position does not move, so ``resume`` continues from the cut. Returns None
        when nothing is pending (the listener already hears silence).
        """
        if self.pending_samples <= 0:
            return None
        start = self._read - self._base
        n = min(self._fade_len, self.pending_samples)
        chunk = np.zeros(self.frame_len, np.float32)
        chunk[:n] = self._buf[start : start + n] * raised_cosine(self._fade_len)[::-1][:n]
        # Words starting inside the fade are not reported: they are barely audible.
        return self._make_frame(chunk, None, last_in_pause=True)

    def fade_in_remainder(self) -> None:
        """Fade in the pending audio (it restarts mid-speech after a pause)."""
        start = self._read - self._base
        n = min(self._fade_len, self.pending_samples)
        if n > 0:
            self._buf[start : start + n] *= raised_cosine(self._fade_len)[:n]

    def _make_frame(self, chunk: F32, content_start: int | None, *, last_in_pause: bool) -> SpeechFrame:
        words: tuple[WordMark, ...] = ()
        if content_start is not None:
            shift = self._listener - content_start
            end = content_start + self.frame_len
            starting = [m for m in self._marks if m[0] < end]
            if starting:
                self._marks = [m for m in self._marks if m[0] >= end]
                words = tuple(WordMark(w, s + shift, max(s, e) + shift) for s, e, w in starting)
                self._emitted_words.extend(words)
        samples = float_to_pcm16(chunk) if self.sample_format is SampleFormat.PCM16 else chunk.copy()
        frame = SpeechFrame(
            turn_id=self.turn_id,
            index=self._frames,
            sample_offset=self._listener,
            sample_rate=self.sample_rate,
            sample_format=self.sample_format,
            samples=samples,
            words=words,
            last_in_pause=last_in_pause,
        )
        self._frames += 1
        self._listener += self.frame_len
        return frame

    # -- dropping -----------------------------------------------------------------------------

    def discard_pending(self) -> None:
        """Drop audio and words not yet handed out (an interrupted answer is obsolete)."""
        self._buf = np.zeros(0, np.float32)
        self._base = self._read
        self._marks.clear()

    @property
    def spoken_words(self) -> tuple[WordMark, ...]:
        """Words whose audio started in a frame already handed out, in listener samples."""
        return tuple(self._emitted_words)

    @property
    def spoken_text(self) -> str:
        return " ".join(w.word for w in self._emitted_words)


__all__ = ["AudioChunk", "Timeline"]
