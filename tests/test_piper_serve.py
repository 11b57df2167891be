"""Many Piper voices on one server: ``ready`` and ``/v1/audio/voices`` list them with their
language, the WebSocket ``config`` switches voice or language between turns and each turn's words
are exactly its text, an unspoken language is ``unsupported_language``, and the OpenAI route
speaks any loaded voice. ``warmline serve``'s flags build the piper backend on a voices folder."""

from __future__ import annotations

import argparse
import asyncio
import json
import urllib.request
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from asr import DISTRACTORS, heard
from piper_voices import GERMAN, JOE, joe_and_german
from websockets.asyncio.client import connect
from ws_helpers import LiveServer, ready, receive_until, run_with_server, send

from transports.serve_cli import add_serve_command, backend_options
from tts_service.backends.piper.backend import PiperBackend
from tts_service.errors import InvalidInputError

ENGLISH_TEXT = "Thank you for calling."
GERMAN_TEXT = "Der Zug fährt um zwölf Uhr ab."
Recognize = Callable[..., str | None]


@pytest.fixture(scope="module")
def voices_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return joe_and_german(tmp_path_factory.mktemp("voices"))


@pytest.fixture(scope="module")
def backend(voices_dir: Path) -> PiperBackend:
    backend = PiperBackend(voices_dir=voices_dir, default_voice=JOE)
    backend.load()
    return backend


def test_serve_flags_give_piper_its_voices_folder_and_default_voice(voices_dir: Path) -> None:
    parser = argparse.ArgumentParser()
    add_serve_command(parser.add_subparsers())
    flags = ["serve", "--backend", "piper", "--voices-dir", str(voices_dir), "--voice", GERMAN]
    args = parser.parse_args(flags)
    assert backend_options(args) == {"voices_dir": str(voices_dir), "default_voice": GERMAN}
    assert backend_options(parser.parse_args(["serve", "--backend", "piper"])) == {"voices_dir": None}
    assert backend_options(parser.parse_args(["serve"])) == {}
    with pytest.raises(InvalidInputError, match="--voices-dir goes with --backend piper"):
        backend_options(parser.parse_args(["serve", "--voices-dir", str(voices_dir)]))


def test_a_call_switches_language_between_turns_and_hears_every_word(
    backend: PiperBackend, recognizer: Recognize
) -> None:
    """ready lists both voices; turn one in English, ``config`` ``language: de`` switches to the
    German voice, turn two in German, then back by voice name: each turn's words are its text."""

    async def body(server: LiveServer) -> None:
        async with connect(server.url()) as ws:
            hello = await ready(ws)
            assert hello["voice"] == JOE and hello["language"] == "en-US"
            assert hello["voices"] == [{"id": GERMAN, "language": "de-DE"}, {"id": JOE, "language": "en-US"}]
            await send(ws, cmd="config", word_timestamps=True)
            await receive_until(ws, "configured")
            await send(ws, cmd="start", text=ENGLISH_TEXT)
            english = await receive_until(ws, "done")
            assert english.words() == ENGLISH_TEXT.split()
            said = heard(ENGLISH_TEXT)
            assert recognizer(english.pcm(), 24000, [said, *DISTRACTORS]) == said

            await send(ws, cmd="config", language="de")
            switched = (await receive_until(ws, "configured")).events[-1]
            assert (switched["voice"], switched["language"]) == (GERMAN, "de-DE")
            await send(ws, cmd="start", text=GERMAN_TEXT)
            german = await receive_until(ws, "done")
            assert german.words() == GERMAN_TEXT.split()

            await send(ws, cmd="config", language="fr")
            refused = (await receive_until(ws, "error")).events[-1]
            assert refused["code"] == "unsupported_language"
            await send(ws, cmd="config", voice=JOE)
            back = (await receive_until(ws, "configured")).events[-1]
            assert (back["voice"], back["language"]) == (JOE, "en-US")

    run_with_server(backend, body)


def test_openai_voices_list_languages_and_speech_takes_any_loaded_voice(
    backend: PiperBackend, recognizer: Recognize
) -> None:
    """/v1/audio/voices lists each voice with its language; /v1/audio/speech speaks in the voice
    asked for (the English one is recognised; the German one is the same graph, so its audio of
    an English sentence read as German differs)."""

    def speech(server: LiveServer, voice: str) -> bytes:
        asked = {"model": "warmline", "input": ENGLISH_TEXT, "voice": voice, "response_format": "pcm"}
        body = json.dumps(asked)
        request = urllib.request.Request(
            server.http("/v1/audio/speech"), data=body.encode(), headers={"Content-Type": "application/json"}
        )
        with urllib.request.urlopen(request, timeout=60) as resp:
            return bytes(resp.read())

    async def body(server: LiveServer) -> None:
        listed = await server.get_json("/v1/audio/voices")
        assert [(v["id"], v["language"]) for v in listed["voices"]] == [(GERMAN, "de-DE"), (JOE, "en-US")]
        assert listed["default"] == JOE
        english = await asyncio.to_thread(speech, server, JOE)
        german = await asyncio.to_thread(speech, server, GERMAN)
        said = heard(ENGLISH_TEXT)
        pcm = np.frombuffer(english, "<i2")
        assert recognizer(pcm, 24000, [said, *DISTRACTORS]) == said
        assert len(german) > 0 and german != english

    run_with_server(backend, body)
