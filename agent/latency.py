"""Where a voice-to-voice answer's time goes: a Pipecat observer that stamps each turn's milestones.

    observer = TurnLatencyObserver()
    parts = AgentParts(runtime=runtime, observers=lambda: [observer])
    ...
    for r in observer.responses: print(r.first_audio_s - r.vad_stop_s)

For every bot response it records, in ``time.monotonic()`` seconds (the clock asyncio's loop uses,
so a caller simulated in the same process can be compared directly): the VAD stop that ended the
caller's speech, the caller's last final transcript, the turn end (the user aggregator hands the
context to the LLM), the LLM's first token, the TTS's first audio frame, and the transport starting
to play it. It also records every confirmed speech start, every interruption (barge-ins), every
pause of the bot's output (``BotOutputPauseFrame``: a barge-in not yet judged) and every LLM
request (``requests``: a context pushed downstream by anything but the assistant aggregator,
whose context frames only record the answer).

A speculative answer (``agent.turn_taking``: the relay announces it with a
``SpeculativeAnswerFrame``) is made before the turn ends: its response is recorded when its
request goes out, and its turn end is the ``UserStoppedSpeakingFrame`` that confirms it (its
first token and first audio then come before its turn end); a speculation that is cancelled
(an ``InterruptionFrame`` first) is dropped from ``responses``.

Works on any pipeline that has those frames (the agent's, or a stock Pipecat bot), wherever its
VAD sits. Each frame counts once, at its first push (the processor that made it), at the moment
the push happened: Pipecat hands observers a pipeline-clock timestamp, converted here. Memory is
bounded: the frame ids seen are a short window, the records ``maxlen`` deques.
"""

from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass

from pipecat.frames.frames import (
    BotStartedSpeakingFrame,
    InterruptionFrame,
    LLMContextFrame,
    LLMTextFrame,
    TranscriptionFrame,
    TTSAudioRawFrame,
    UserStoppedSpeakingFrame,
    VADUserStartedSpeakingFrame,
    VADUserStoppedSpeakingFrame,
)
from pipecat.observers.base_observer import BaseObserver, FramePushed
from pipecat.processors.aggregators.llm_response_universal import LLMAssistantAggregator
from pipecat.processors.frame_processor import FrameDirection

from agent.responder import last_user_text
from tts_service.pipecat.frames import BotOutputPauseFrame, SpeculativeAnswerFrame

#: frame ids remembered to count each frame once (a frame crosses every processor within ms)
_SEEN_WINDOW = 512
_WATCHED = (
    BotStartedSpeakingFrame,
    BotOutputPauseFrame,
    InterruptionFrame,
    SpeculativeAnswerFrame,
    UserStoppedSpeakingFrame,
    LLMContextFrame,
    LLMTextFrame,
    TranscriptionFrame,
    TTSAudioRawFrame,
    VADUserStartedSpeakingFrame,
    VADUserStoppedSpeakingFrame,
)


@dataclass(slots=True)
class ResponseTimes:
    """One bot response's milestones, monotonic seconds; None where the pipeline never got there."""

    #: the caller's turn ended: the context went to the LLM (or, for a speculative answer, the
    #: turn end that confirmed it; None until then)
    turn_end_s: float | None
    #: the last VAD stop before the turn end (None if the turn ended on a transcript alone)
    vad_stop_s: float | None
    #: the last final transcript before the turn end
    transcript_s: float | None
    #: the caller's words the response answers (the context's last user message)
    heard: str = ""
    first_token_s: float | None = None
    #: the TTS's first audio frame of this response
    first_audio_s: float | None = None
    #: the output transport started playing it (``BotStartedSpeakingFrame``)
    bot_started_s: float | None = None
    #: when its request went out, if it was a speculative answer (made before the turn ended)
    speculated_s: float | None = None


class TurnLatencyObserver(BaseObserver):
    """Stamps every response's milestones (see the module docstring); one per pipeline."""

    def __init__(self, *, maxlen: int = 1000) -> None:
        super().__init__()
        self.responses: deque[ResponseTimes] = deque(maxlen=maxlen)
        #: every confirmed start of the caller's speech
        self.speech_starts: deque[float] = deque(maxlen=maxlen)
        #: every interruption (the first push of each ``InterruptionFrame``)
        self.interruptions: deque[float] = deque(maxlen=maxlen)
        #: every pause of the bot's output (speech over the bot, before it is judged)
        self.pauses: deque[float] = deque(maxlen=maxlen)
        #: every LLM request (a context sent to the LLM, speculative ones included)
        self.requests: deque[float] = deque(maxlen=maxlen)
        self._next_speculative = False
        self._seen: deque[int] = deque()
        self._seen_set: set[int] = set()
        self._speaking = False
        self._vad_stop_s: float | None = None
        self._transcript_s: float | None = None

    async def on_push_frame(self, data: FramePushed) -> None:
        frame = data.frame
        if not isinstance(frame, _WATCHED) or not self._first_sight(frame.id):
            return
        # the pipeline clock counts from its start; its value now and monotonic now give the origin
        clock_now_ns = data.source.get_clock().get_time()
        at_s = (time.monotonic_ns() - clock_now_ns + data.timestamp) / 1e9
        self.record(frame, data.direction, at_s, by_assistant=isinstance(data.source, LLMAssistantAggregator))

    def record(
        self, frame: object, direction: FrameDirection, at_s: float, *, by_assistant: bool = False
    ) -> None:
        """Take ``frame``, first pushed ``direction`` at ``at_s`` (monotonic seconds); ``by_assistant``:
        pushed by the assistant aggregator (its context frames record the answer, they ask nothing)."""
        current = self.responses[-1] if self.responses else None
        if isinstance(frame, VADUserStartedSpeakingFrame):
            if not self._speaking:  # a VAD inside an aggregator broadcasts a copy each way
                self._speaking = True
                self.speech_starts.append(at_s)
        elif isinstance(frame, VADUserStoppedSpeakingFrame):
            if self._speaking:
                self._speaking = False
                self._vad_stop_s = at_s
        elif isinstance(frame, InterruptionFrame):
            if current is not None and current.speculated_s is not None and current.turn_end_s is None:
                self.responses.pop()  # a cancelled speculation: nobody heard it
            if not self.interruptions or at_s - self.interruptions[-1] > 0.05:  # broadcast copies
                self.interruptions.append(at_s)
        elif isinstance(frame, BotOutputPauseFrame):
            self.pauses.append(at_s)
        elif isinstance(frame, SpeculativeAnswerFrame):
            self._next_speculative = True
        elif isinstance(frame, UserStoppedSpeakingFrame):
            if current is not None and current.speculated_s is not None and current.turn_end_s is None:
                # confirmed: the pause's VAD stop and transcript came after the request went out
                current.turn_end_s = at_s
                current.vad_stop_s, current.transcript_s = self._vad_stop_s, self._transcript_s
                self._vad_stop_s = self._transcript_s = None
        elif isinstance(frame, TranscriptionFrame):
            self._transcript_s = at_s
        elif (
            isinstance(frame, LLMContextFrame)
            and direction is FrameDirection.DOWNSTREAM
            and not by_assistant
            and not frame.speculation  # a provisional context: the turn has not ended
        ):
            heard = last_user_text(frame.context.get_messages())
            self.requests.append(at_s)
            if current is not None and current.speculated_s is not None and current.turn_end_s is None:
                self.responses.pop()  # a speculation replaced by a newer request
            if self._next_speculative:
                self._next_speculative = False
                response = ResponseTimes(None, None, None, heard, speculated_s=at_s)
            else:
                response = ResponseTimes(at_s, self._vad_stop_s, self._transcript_s, heard)
                self._vad_stop_s = self._transcript_s = None
            self.responses.append(response)
        elif current is None:
            return
        elif isinstance(frame, LLMTextFrame):
            if current.first_token_s is None:
                current.first_token_s = at_s
        elif isinstance(frame, TTSAudioRawFrame):
            if current.first_token_s is not None and current.first_audio_s is None:
                current.first_audio_s = at_s
        elif (
            isinstance(frame, BotStartedSpeakingFrame)
            and current.first_audio_s is not None
            and current.bot_started_s is None
        ):
            current.bot_started_s = at_s

    def _first_sight(self, frame_id: int) -> bool:
        if frame_id in self._seen_set:
            return False
        self._seen.append(frame_id)
        self._seen_set.add(frame_id)
        if len(self._seen) > _SEEN_WINDOW:
            self._seen_set.discard(self._seen.popleft())
        return True


__all__ = ["ResponseTimes", "TurnLatencyObserver"]
