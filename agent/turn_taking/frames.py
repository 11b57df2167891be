"""The frames between the agent's recognizer and its barge-in, besides Pipecat's own.

    frame = PeekTranscriptionFrame("yeah", user_id, time_now_iso8601(), Language.EN)
    frame.result = heard            # agent.turn_taking.confidence.Heard: how far to trust it

``PeekTranscriptionFrame``: the words of speech that is still going on over the bot, read from
the audio so far (``agent.stt.tiny``: whisper every 150 ms while the caller speaks over it). Only
the barge-in reads it, to talk a backchannel through before it ends; the turn's end never does,
since it is no pause. It is an ``InterimTranscriptionFrame``, so whatever handles interims
(Pipecat's user aggregator, which consumes them) handles it too. ``PeeksDoneFrame``: the barge-in
found a turn, so the peeks stop.
"""

from __future__ import annotations

from pipecat.frames.frames import InterimTranscriptionFrame, SystemFrame


class PeekTranscriptionFrame(InterimTranscriptionFrame):
    """Words of speech over the bot that goes on: only the barge-in reads them."""


class PeeksDoneFrame(SystemFrame):
    """Upstream, from the barge-in: the speech over the bot is a turn, whatever comes next; the
    recognizer stops peeking at it (a peek on the worker thread would hold up the transcription
    at the caller's pause, and so the answer)."""


__all__ = ["PeekTranscriptionFrame", "PeeksDoneFrame"]
