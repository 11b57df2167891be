"""A Piper unit's audio decoded a piece at a time, for the engine to pull (``ports.UnitPieces``).

The front of the voice's graph has already made the unit's latent ``z_p`` and its durations, so
its words and speech span are known; what is left is the flow and decoder, two thirds of a unit's
compute. ``plan`` cuts the latent's frames into pieces: the first reaches just past the first
80 ms frame of speech (``FIRST_PIECE_S`` after the first phoneme begins), so the engine can send
that frame after decoding a few dozen frames instead of the whole unit; each later piece is
``GROWTH`` times all decoded before it, so a piece is decoded long before the audio before it has
played, and a unit costs few pieces (each piece decodes context on each side that it then drops:
``piper_compat.DECODER_CONTEXT_FRAMES``, and ``FLOW_CONTEXT_FRAMES`` more through the flow).
``piper_compat.decode`` makes the joined pieces match the whole decode.
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

from tts_service.backends.piper.piper_compat import PiperSession, decode
from tts_service.engine.resample import StreamResampler

F32 = npt.NDArray[np.float32]

#: the first piece reaches this far past the start of the first phoneme: one 80 ms frame of speech,
#: the engine's 8 ms trim margin, and what its resampler holds back, which soxr hands out in blocks
#: (to 8 kHz about 67 ms of input a block). 0.12 s left 26 of 40 first units a frame short at 8 kHz
#: (the frame then waits for the next, larger piece), 0.14 s none at 8 to 48 kHz
FIRST_PIECE_S = 0.14
#: each later piece holds this many times the frames decoded before it. The second piece must be
#: decoded before the listener has played the first (about 1.3 frames: one 80 ms frame beyond the
#: first), on a worker that may be busy with other calls: at 2x it is about 32 frames, some 40 ms
#: of compute here (4x: 60 ms); its context (the decoder's 20 frames, the flow's 60) is the floor
GROWTH = 2


def plan(frames: int, first_speech_frame: int, frames_per_s: float) -> list[int]:
    """The end frame of each piece: the first just past the first frame of speech, then growing."""
    ends = [min(frames, first_speech_frame + math.ceil(FIRST_PIECE_S * frames_per_s))]
    while ends[-1] < frames:
        ends.append(min(frames, ends[-1] * (GROWTH + 1)))
    return ends


class LatentPieces:
    """The rest of a unit, after its first piece: each ``next_piece`` decodes one more piece."""

    def __init__(
        self, graph: PiperSession, latent: F32, ends: list[int], start: int, resampler: StreamResampler
    ) -> None:
        self._graph = graph
        self._latent = latent
        self._ends = ends
        self._at = start
        self._resampler = resampler

    @property
    def done(self) -> bool:
        """Every piece has been decoded."""
        return not self._ends

    @property
    def pieces_left(self) -> int:
        return len(self._ends)

    def next_piece(self) -> F32:
        """The next piece's audio at the backend's rate (the last one drains the resampler)."""
        if not self._ends:
            return np.zeros(0, np.float32)
        end = self._ends.pop(0)
        audio = decode(self._graph, self._latent, self._at, end)
        self._at = end
        return self._resampler.finish(audio) if not self._ends else self._resampler.process(audio)


__all__ = ["FIRST_PIECE_S", "GROWTH", "LatentPieces", "plan"]
