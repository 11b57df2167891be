"""The words heard stay exact: marks, contexts and ``paused.spoken`` carry what the LLM wrote.

The model is given "two thousand four hundred eighteen dollars and seven cents"; the listener, the
Pipecat context and a barge-in's account name "$2,418.07", once the audio of its spoken form
starts. The tone toy marks each spoken word exactly, so the tests know where each one lies.
"""

from __future__ import annotations

import asyncio

import pytest
from engine_helpers import frames_of, pump, pump_frames
from test_pipecat_service import Call, running, tokens, tone_runtime, tone_service, truth_frames
from toy_backends import ToneBackend, ToyFrameBackend

from tts_service.engine.reading.lexicon import LexiconError
from tts_service.engine.session import EngineSession, SessionConfig
from tts_service.engine.types import Paused
from tts_service.pipecat.service import WarmlineTTSService

ANSWER = "Your total is $2,418.07, so call 415-555-0188 or write to jane.doe@mail.org today."
WRITTEN = ANSWER.split()


def frozen_clock() -> float:
    return 0.0


def _marks(backend: object) -> list[str]:
    session = EngineSession(backend, SessionConfig(), clock=frozen_clock)  # type: ignore[arg-type]
    session.start(ANSWER)
    session.flush()
    return [w.word for f in frames_of(pump(session)) for w in f.words]


def test_frame_marks_carry_the_written_tokens_for_unit_and_frame_models() -> None:
    """Both kinds of producer give marks back to the written tokens, in order, each once."""
    assert _marks(ToneBackend()) == WRITTEN
    assert _marks(ToyFrameBackend()) == WRITTEN


def test_a_barge_in_inside_an_expansion_counts_the_written_token_as_heard() -> None:
    """Paused in the middle of "two thousand ... cents": "$2,418.07" is in ``spoken``, whole."""
    session = EngineSession(ToneBackend(), SessionConfig(), clock=frozen_clock)
    session.start(ANSWER)
    session.flush()
    frames = frames_of(pump(session))
    money = next(w for f in frames for w in f.words if w.word == "$2,418.07,")
    starts_in = next(i for i, f in enumerate(frames) if money in f.words)
    cut_frame = starts_in + 2
    assert money.end_sample > sum(f.num_samples for f in frames[:cut_frame]), "the cut lands inside it"

    live = EngineSession(ToneBackend(), SessionConfig(), clock=frozen_clock)
    live.start(ANSWER)
    live.flush()
    pump_frames(live, cut_frame)
    paused = live.pause()
    assert isinstance(paused, Paused)
    assert paused.spoken == "Your total is $2,418.07,"
    assert [w.word for w in paused.words][-1] == "$2,418.07,"


def test_the_pipecat_context_holds_the_written_answer() -> None:
    """Tokens cut anywhere ("$2", ",41", "8.0"), the assistant context is the text as written."""

    async def main() -> None:
        async with tone_runtime() as rt:
            call = Call(tone_service(rt))
            async with running(call):
                await call.answer(*tokens(ANSWER))
            truth = truth_frames(rt.backend, ANSWER)
        assert call.assistant_text() == [ANSWER]
        assert [w.word for f in truth for w in f.words] == WRITTEN

    asyncio.run(main())


def test_a_pipecat_lexicon_changes_the_reading_not_the_context() -> None:
    """``WarmlineTTSService(lexicon=...)``: the model hears the respelling, the context the word."""

    async def main() -> None:
        async with tone_runtime() as rt:
            with pytest.raises(LexiconError, match="takes no phonemes"):
                WarmlineTTSService(runtime=rt, lexicon={"Nguyen": "/ŋwn/"})
            service = WarmlineTTSService(runtime=rt, lexicon={"Warmline": "warm line"})
            call = Call(service)
            async with running(call):
                await call.answer(*tokens("Warmline costs $5."))
        assert call.assistant_text() == ["Warmline costs $5."]

    asyncio.run(main())
