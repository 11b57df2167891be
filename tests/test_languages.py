"""``tts_service.languages`` on a backend that does not say its voices' language: every voice is
English, an English language keeps the voice, any other is ``unsupported_language``."""

from __future__ import annotations

import pytest
from toy_backends import ToneBackend

from tts_service.errors import UnsupportedLanguageError
from tts_service.languages import MultilingualBackend, choose_voice, speaks, voice_catalog, voice_language


def test_a_backend_without_languages_speaks_english() -> None:
    backend = ToneBackend()
    assert not isinstance(backend, MultilingualBackend)
    assert voice_language(backend, "a") == "en"
    assert voice_catalog(backend) == [{"id": v, "language": "en"} for v in backend.voices()]


@pytest.mark.parametrize("language", ["en", "EN", "en-US", "en_gb"])
def test_an_english_language_keeps_the_voice(language: str) -> None:
    assert choose_voice(ToneBackend(), current="b", voice=None, language=language) == "b"


def test_another_language_is_unsupported_and_names_what_is_spoken() -> None:
    with pytest.raises(UnsupportedLanguageError, match="no loaded voice speaks 'de'; these speak en"):
        choose_voice(ToneBackend(), current="a", voice=None, language="de")
    with pytest.raises(UnsupportedLanguageError, match="voice 'b' speaks en, not 'fr'"):
        choose_voice(ToneBackend(), current="a", voice="b", language="fr")


def test_no_language_leaves_the_voice_choice_alone() -> None:
    assert choose_voice(ToneBackend(), current="a", voice=None, language=None) == "a"
    assert choose_voice(ToneBackend(), current="a", voice="b", language=None) == "b"


@pytest.mark.parametrize(
    ("asked", "voice", "spoken"),
    [
        ("de", "de-DE", True),
        ("de-de", "de-DE", True),
        ("de_AT", "de-DE", False),
        ("de-AT", "de", True),
        ("d", "de-DE", False),
        ("", "en", False),
        ("pt", "pt-BR", True),
        ("pt-PT", "pt-BR", False),
    ],
)
def test_a_language_is_spoken_by_its_own_region_or_by_a_voice_of_no_region(
    asked: str, voice: str, spoken: bool
) -> None:
    assert speaks(asked, voice) is spoken
