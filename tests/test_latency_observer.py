"""``agent.latency.TurnLatencyObserver``: what it stamps for ordinary, speculative and cancelled answers."""

from __future__ import annotations

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
from pipecat.processors.aggregators.llm_context import LLMContext
from pipecat.processors.frame_processor import FrameDirection

from agent.latency import TurnLatencyObserver
from tts_service.pipecat.frames import BotOutputPauseFrame, SpeculativeAnswerFrame

DOWN = FrameDirection.DOWNSTREAM


def context(user: str) -> LLMContextFrame:
    return LLMContextFrame(context=LLMContext(messages=[{"role": "user", "content": user}]))


def audio() -> TTSAudioRawFrame:
    return TTSAudioRawFrame(audio=b"\0\0" * 160, sample_rate=8000, num_channels=1)


def test_an_answer_is_stamped_from_the_vad_stop_to_playback_and_the_assistant_context_asks_nothing() -> None:
    seen = TurnLatencyObserver()
    for frame, at in (
        (VADUserStartedSpeakingFrame(), 0.5),
        (VADUserStoppedSpeakingFrame(), 1.0),
        (TranscriptionFrame("what time do you open", "caller", "now"), 1.01),
        (context("what time do you open"), 1.05),
        (LLMTextFrame("We "), 1.1),
        (audio(), 1.2),
        (BotStartedSpeakingFrame(), 1.25),
    ):
        seen.record(frame, DOWN, at)
    seen.record(context("what time do you open"), DOWN, 3.0, by_assistant=True)  # records the answer
    (response,) = seen.responses
    assert (response.vad_stop_s, response.transcript_s, response.turn_end_s) == (1.0, 1.01, 1.05)
    assert (response.first_token_s, response.first_audio_s, response.bot_started_s) == (1.1, 1.2, 1.25)
    assert response.heard == "what time do you open" and response.speculated_s is None
    assert list(seen.requests) == [1.05] and list(seen.speech_starts) == [0.5]


def test_a_speculative_answer_is_made_before_its_turn_end_and_stamped_when_confirmed() -> None:
    """Its first token and audio come before the turn end; the VAD stop and transcript of the
    confirmed pause are its own, not what was left from before."""
    seen = TurnLatencyObserver()
    for frame, at in (
        (VADUserStartedSpeakingFrame(), 4.0),
        (SpeculativeAnswerFrame(), 5.0),
        (context("when do you close"), 5.0),
        (LLMTextFrame("We "), 5.05),
        (VADUserStoppedSpeakingFrame(), 5.1),
        (TranscriptionFrame("when do you close", "caller", "now"), 5.11),
        (audio(), 5.15),
        (UserStoppedSpeakingFrame(), 5.3),
    ):
        seen.record(frame, DOWN, at)
    (response,) = seen.responses
    assert response.speculated_s == 5.0 and response.turn_end_s == 5.3
    assert (response.vad_stop_s, response.transcript_s) == (5.1, 5.11)
    assert response.first_token_s == 5.05 and response.first_audio_s == 5.15


def test_a_cancelled_speculation_is_no_response_but_its_request_counts() -> None:
    seen = TurnLatencyObserver()
    seen.record(SpeculativeAnswerFrame(), DOWN, 7.0)
    seen.record(context("i need a table"), DOWN, 7.0)
    seen.record(BotOutputPauseFrame(), DOWN, 7.05)
    seen.record(InterruptionFrame(), DOWN, 7.1)  # the caller went on: the relay cancels it
    assert list(seen.responses) == [] and list(seen.requests) == [7.0]
    assert list(seen.pauses) == [7.05] and list(seen.interruptions) == [7.1]
