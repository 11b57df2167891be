"""WarmlineTTSService in remote mode against a live ``warmline serve``: what the local mode promises.

The server is the real app (``transports.ws.server.create_app`` under uvicorn on 127.0.0.1);
between it and the service sits a TCP relay the test can cut, as a replica dies. The pipelines
and ``Playback`` are those of ``test_pipecat_service``; only the service's constructor differs
(``url=``), as a bot's code would.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
import wave
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from asr import DISTRACTORS, normalize
from pipecat.frames.frames import ErrorFrame, Frame, TTSAudioRawFrame, TTSTextFrame
from test_pipecat_service import (
    TIMEOUT_S,
    Call,
    assert_nothing_after_interruption,
    cut_point,
    first_context_id,
    frozen_clock,
    running,
    tokens,
    truth_frames,
    words_before,
)
from test_turn_taking_pipeline import until
from toy_backends import ToneBackend

from transports.serve import serving
from transports.ws.server import create_app
from transports.ws.settings import ServerSettings
from tts_service.engine.config import SessionConfig
from tts_service.engine.ports import Backend
from tts_service.engine.session import SessionState
from tts_service.pipecat.frames import BotOutputPauseFrame, BotOutputResumeFrame
from tts_service.pipecat.service import WarmlineTTSService
from tts_service.remote.session import RemoteSession
from tts_service.remote.wire_session import CONNECTION_LOST
from tts_service.runtime import EngineRuntime

ANSWER = "Sure, I can help with that. The store opens at nine tomorrow morning. See you there!"
TOKEN = "remote-test-token"


class Relay:
    """A TCP relay to the server; ``cut()`` drops every connection through it (a replica dies)."""

    def __init__(self, target: tuple[str, int]) -> None:
        self._target = target
        self._pipes: set[asyncio.Task[None]] = set()
        self._server: asyncio.Server | None = None
        self.accepted = 0

    async def __aenter__(self) -> tuple[str, int]:
        self._server = await asyncio.start_server(self._accept, "127.0.0.1", 0)
        host, port = self._server.sockets[0].getsockname()[:2]
        return host, port

    async def __aexit__(self, *exc: object) -> None:
        await self.cut()
        assert self._server is not None
        self._server.close()
        await self._server.wait_closed()

    async def cut(self) -> None:
        pipes, self._pipes = set(self._pipes), set()
        for pipe in pipes:
            pipe.cancel()
        await asyncio.gather(*pipes, return_exceptions=True)

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.accepted += 1
        up_reader, up_writer = await asyncio.open_connection(*self._target)
        pipe = asyncio.current_task()
        assert pipe is not None
        self._pipes.add(pipe)
        try:
            await asyncio.gather(_copy(reader, up_writer), _copy(up_reader, writer))
        finally:
            for w in (writer, up_writer):
                w.transport.abort()  # no close frame, no FIN handshake: the peer just vanishes
            self._pipes.discard(pipe)


async def _copy(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    while data := await reader.read(65536):
        writer.write(data)
        await writer.drain()


@contextlib.asynccontextmanager
async def warmline_serve(
    backend: Backend, *, clock: Callable[[], float] | None = None
) -> AsyncIterator[tuple[Relay, str]]:
    """A live server with a token, behind a relay; yields the relay and the URL to give the bot.
    ``clock``: the engine's (a frozen one makes its units depend on the text alone)."""
    options: dict[str, Any] = {} if clock is None else {"clock": clock}
    async with EngineRuntime(backend, workers=1, **options) as runtime:
        settings = ServerSettings(token=TOKEN)
        async with serving(create_app(runtime, settings), settings, host="127.0.0.1", port=0) as target:
            relay = Relay(target)
            async with relay as (host, port):
                yield relay, f"ws://{host}:{port}/"


def remote_service(url: str, **kwargs: Any) -> WarmlineTTSService:
    return WarmlineTTSService(url=url, token=TOKEN, max_lead_s=None, **kwargs)


def heard_words(frames: list[Frame]) -> list[str]:
    return [f.text for f in frames if isinstance(f, TTSTextFrame)]


def words_in_first(frames: list[Frame], played: int) -> list[str]:
    """The words whose audio starts in the first ``played`` audio frames (each follows its frame)."""
    words: list[str] = []
    audio = 0
    for frame in frames:
        if isinstance(frame, TTSAudioRawFrame):
            audio += 1
            if audio > played:
                break
        elif isinstance(frame, TTSTextFrame) and audio > 0:
            words.append(frame.text)
    return words


def test_a_remote_answer_is_heard_whole_and_recorded(
    hibari_backend: Backend, recognizer: Callable[..., str | None]
) -> None:
    """Streamed tokens over the wire: hibari's audio recognised, every word in the context."""
    sentence = "i can help you with that, let me check the schedule for tomorrow."
    audio: list[TTSAudioRawFrame] = []

    async def main() -> None:
        async with warmline_serve(hibari_backend) as (_, url):
            call = Call(remote_service(url, session_config=SessionConfig(seed=0)), sample_rate=16000)
            async with running(call):
                await call.answer(*tokens(sentence, 4))
                await until(lambda: bool(call.assistant_text()), "the answer's end")
            audio.extend(f for f in call.playback.received if isinstance(f, TTSAudioRawFrame))
            assert call.assistant_text() == [sentence]

    asyncio.run(main())
    assert audio and all(f.sample_rate == 16000 and len(f.audio) == 2 * 1280 for f in audio)
    samples = np.frombuffer(b"".join(f.audio for f in audio), dtype="<i2")
    assert recognizer(samples, 16000, [sentence, *DISTRACTORS]) == " ".join(normalize(sentence))


def test_after_a_remote_barge_in_the_context_holds_exactly_the_words_that_began_playing() -> None:
    """Six frames played, then the caller barges in: the context is their words, nothing after."""

    async def main() -> None:
        async with warmline_serve(ToneBackend()) as (_, url):
            call = Call(remote_service(url), hold=True)
            async with running(call):
                await call.answer(*tokens(ANSWER))
                await asyncio.wait_for(call.playback.play(6), TIMEOUT_S)
                heard = words_in_first(call.playback.received, 6)
                await call.interrupt()
                session = call.service.session
                assert session is not None and session.state is SessionState.IDLE
                call.playback.hold = False
                await call.answer(*tokens("Okay."))
                await until(lambda: len(call.assistant_text()) == 2, "the second answer")
            assert heard
            assert call.assistant_text() == [" ".join(heard), "Okay."]
            after = call.playback.after_interruption
            assert [f.text for f in after if isinstance(f, TTSTextFrame)] == ["Okay."]

    asyncio.run(main())


@pytest.mark.parametrize("where", ["mid-word", "mid-sentence", "between-sentences"])
def test_at_every_cut_point_the_remote_context_is_the_words_whose_audio_began(where: str) -> None:
    """The local service's barge-in test over the wire: the server's engine on a frozen clock
    makes the offline truth's frames, and the context after N played frames is their words."""

    async def main() -> None:
        async with warmline_serve(ToneBackend(), clock=frozen_clock) as (_, url):
            truth = truth_frames(ToneBackend(), ANSWER, config=SessionConfig(sample_rate=24000))
            played = cut_point(truth, where)
            call = Call(remote_service(url), hold=True)
            async with running(call):
                await call.answer(*tokens(ANSWER))
                await asyncio.wait_for(call.playback.play(played), TIMEOUT_S)
                await call.interrupt()
                call.playback.hold = False
                await call.answer(*tokens("Okay."))
                await until(lambda: len(call.assistant_text()) == 2, "the second answer")
            assert call.assistant_text() == [words_before(truth, played), "Okay."]
            assert_nothing_after_interruption(call, first_context=first_context_id(call))

    asyncio.run(main())


def test_a_remote_pause_and_resume_lose_no_word_and_repeat_none() -> None:
    """A backchannel over the answer: paused on the wire, resumed; every word once, context whole."""

    async def main() -> None:
        async with warmline_serve(ToneBackend()) as (_, url):
            call = Call(remote_service(url), hold=True)
            async with running(call):
                await call.answer(*tokens(ANSWER))
                await asyncio.wait_for(call.playback.play(4), TIMEOUT_S)
                await call.send(BotOutputPauseFrame())
                session = call.service.session
                assert session is not None
                await until(lambda: session.state is SessionState.PAUSED, "the pause")
                await asyncio.sleep(0.3)  # frames the server had sent wait behind the pause
                call.playback.hold = False
                await call.send(BotOutputResumeFrame())
                await call.playback.play(0)
                await until(lambda: bool(call.assistant_text()), "the answer's end")
            assert " ".join(heard_words(call.playback.received)).split() == ANSWER.split()
            assert [a.split() for a in call.assistant_text()] == [ANSWER.split()]

    asyncio.run(main())


def test_a_connection_dropped_mid_turn_is_an_error_for_that_turn_and_the_next_turn_reconnects() -> None:
    """The replica vanishes mid-answer: a Pipecat error, the context keeps only the words that
    arrived, and the next answer goes out over a new connection, whole."""

    async def main() -> None:
        async with warmline_serve(ToneBackend()) as (relay, url):
            call = Call(remote_service(url))
            async with running(call):
                await call.answer(*tokens(ANSWER))
                await until(lambda: len(heard_words(call.playback.received)) >= 3, "a few words")
                await relay.cut()
                await until(lambda: bool(call.assistant_text()), "the first turn's end")
                errors = [f for f in call.upstream.frames if isinstance(f, ErrorFrame)]
                assert errors and CONNECTION_LOST in errors[0].error
                first = heard_words(call.playback.received)
                assert 3 <= len(first) < len(ANSWER.split())
                await call.answer(*tokens("Okay, here I am again."))
                await until(lambda: len(call.assistant_text()) == 2, "the second answer")
                session = call.service.session
                assert isinstance(session, RemoteSession) and session.connections == 2
            assert call.assistant_text() == [" ".join(first), "Okay, here I am again."]
            assert ANSWER.startswith(call.assistant_text()[0].rstrip(",. "))
            assert relay.accepted == 2

    asyncio.run(main())


def test_a_wrong_token_is_a_clear_error_at_the_start() -> None:
    """The server refuses the handshake: the pipeline is told at once (remote_unavailable)."""

    async def main() -> None:
        async with warmline_serve(ToneBackend()) as (_, url):
            call = Call(WarmlineTTSService(url=url, token="wrong", max_lead_s=None))
            async with running(call):
                await until(lambda: any(isinstance(f, ErrorFrame) for f in call.upstream.frames), "the error")
            error = next(f for f in call.upstream.frames if isinstance(f, ErrorFrame))
            assert "HTTP 401" in error.error
            assert call.service.session is None

    asyncio.run(main())


ROOT = Path(__file__).resolve().parent.parent


# remote: the example's whole call through a second server, a scenario (tests/conftest.py)
@pytest.mark.parametrize("mode", ["local", pytest.param("remote", marks=pytest.mark.scenario)])
def test_the_pipecat_example_speaks_in_both_modes(
    mode: str, hibari_backend: Backend, recognizer: Callable[..., str | None], tmp_path: Path
) -> None:
    """``examples/pipecat_bot.py`` as a user runs it, locally and with ``--url``: the answer is
    recognised in its WAV and the printed context holds all of it."""
    out = tmp_path / "out.wav"
    answer = "Sure, I can help with that."

    async def main() -> str:
        async with warmline_serve(hibari_backend) as (_, url):
            extra = ["--url", url] if mode == "remote" else []
            proc = await asyncio.create_subprocess_exec(
                sys.executable,
                str(ROOT / "examples" / "pipecat_bot.py"),
                str(out),
                *extra,
                env={**os.environ, "WARMLINE_TOKEN": TOKEN},
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.STDOUT,
            )
            stdout, _ = await asyncio.wait_for(proc.communicate(), 120)
            assert proc.returncode == 0, stdout.decode(errors="replace")[-2000:]
            return stdout.decode()

    printed = asyncio.run(main())
    assert "'role': 'assistant'" in printed and "Parking is free after six" in printed
    with wave.open(str(out)) as w:
        rate, pcm = w.getframerate(), np.frombuffer(w.readframes(w.getnframes()), dtype="<i2")
    first = pcm[: int(rate * 2.2)]  # the answer's first sentence
    assert recognizer(first, rate, [answer, *DISTRACTORS]) == " ".join(normalize(answer))
