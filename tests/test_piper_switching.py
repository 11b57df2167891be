"""Switching voice and language mid-call on Piper voices, through Pipecat and LiveKit: the
first answer in English, a switch, the second in German; the context (Pipecat) and the aligned
words (LiveKit) hold exactly the words of both answers; a language no voice speaks is an error."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import numpy as np
import pytest
from asr import DISTRACTORS, heard
from pipecat.frames.frames import ErrorFrame, TTSUpdateSettingsFrame
from piper_voices import GERMAN, JOE, joe_and_german
from test_pipecat_service import Call, audio_of, running, tokens

from tts_service.backends.piper.backend import PiperBackend
from tts_service.engine.session import SessionConfig
from tts_service.pipecat.service import WarmlineTTSService
from tts_service.runtime import EngineRuntime

ENGLISH = "Thank you for calling, your table is ready now."
GERMAN_TEXT = "Der Zug fährt um zwölf Uhr ab."
Recognize = Callable[..., str | None]


@pytest.fixture(scope="module")
def backend(tmp_path_factory: pytest.TempPathFactory) -> PiperBackend:
    backend = PiperBackend(voices_dir=joe_and_german(tmp_path_factory.mktemp("voices")), default_voice=JOE)
    backend.load()
    return backend


def test_pipecat_switches_language_between_two_turns_and_the_context_holds_both(
    backend: PiperBackend, recognizer: Recognize
) -> None:
    """TTSUpdateSettingsFrame(language="de") between two answers: the second is spoken by the
    German voice, the first stays English (recognised), and the context has both, word for word."""

    async def main() -> tuple[Call, list[str]]:
        async with EngineRuntime(backend, workers=1) as rt:
            service = WarmlineTTSService(
                runtime=rt, language="en", max_lead_s=None, session_config=SessionConfig(seed=0)
            )
            call = Call(service)
            voices: list[str] = []
            async with running(call):
                await call.answer(*tokens(ENGLISH))
                await call.send(TTSUpdateSettingsFrame(delta=WarmlineTTSService.Settings(language="de")))
                await call.answer(*tokens(GERMAN_TEXT))
                for _ in range(600):
                    await asyncio.sleep(0.05)
                    if len(call.assistant_text()) == 2:
                        break
                assert service.session is not None
                voices.append(service.session.config.voice or "")
        return call, voices

    call, voices = asyncio.run(main())
    assert call.assistant_text() == [ENGLISH, GERMAN_TEXT]
    assert voices == [GERMAN]
    frames = audio_of(call.playback.received)
    contexts = list(dict.fromkeys(f.context_id for f in frames))
    assert len(contexts) == 2
    english = np.frombuffer(b"".join(f.audio for f in frames if f.context_id == contexts[0]), "<i2")
    said = heard(ENGLISH)
    assert recognizer(english, 24000, [said, *DISTRACTORS]) == said


def test_pipecat_reports_a_language_no_voice_speaks(backend: PiperBackend) -> None:
    async def main() -> Call:
        async with EngineRuntime(backend, workers=1) as rt:
            call = Call(WarmlineTTSService(runtime=rt, max_lead_s=None))
            async with running(call):
                await call.send(TTSUpdateSettingsFrame(delta=WarmlineTTSService.Settings(language="fr")))
                await call.answer(*tokens(ENGLISH))
                for _ in range(600):
                    await asyncio.sleep(0.05)
                    if call.assistant_text():
                        break
        return call

    call = asyncio.run(main())
    errors = [f for f in call.upstream.frames if isinstance(f, ErrorFrame)]
    assert errors and "no loaded voice speaks 'fr'" in errors[0].error
    assert call.assistant_text() == [ENGLISH]  # said in the voice it had


def test_livekit_update_options_switches_language_between_streams(backend: PiperBackend) -> None:
    """``update_options(language="de")`` between two streams: the second speaks German, and each
    stream's aligned words are exactly its text."""
    lk = pytest.importorskip("tts_service.livekit.tts", reason="the `livekit` extra is not installed")
    from livekit.agents.types import USERDATA_TIMED_TRANSCRIPT

    async def say(voice: lk.WarmlineTTS, text: str) -> list[str]:
        words: list[str] = []
        async with voice.stream() as stream:
            stream.push_text(text)
            stream.end_input()
            async for ev in stream:
                words += [str(w).strip() for w in ev.frame.userdata.get(USERDATA_TIMED_TRANSCRIPT, [])]
        return words

    async def main() -> tuple[list[str], list[str], str]:
        runtime = EngineRuntime(backend, workers=1)
        async with runtime as rt, lk.WarmlineTTS(runtime=rt, language="en") as voice:
            first = await say(voice, ENGLISH)
            voice.update_options(language="de")
            second = await say(voice, GERMAN_TEXT)
            voice.update_options(language="fr")
            try:
                await say(voice, ENGLISH)
            except Exception as exc:  # LiveKit's APIError, after its own retries are refused
                refused = str(exc)
            else:
                refused = ""
        return first, second, refused

    first, second, refused = asyncio.run(main())
    assert first == ENGLISH.split()
    assert second == GERMAN_TEXT.split()
    assert "no loaded voice speaks 'fr'" in refused
