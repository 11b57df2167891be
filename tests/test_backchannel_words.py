"""Backchannels talked through in the caller's language: "vale" over the bot resumes it, "espera"
stops it, and ``warmline call --language`` hands the barge-in its language's words."""

from __future__ import annotations

import pytest
from test_agent_language import OPENAI, TwoLanguages

from agent.settings import AgentSettings, default_parts
from agent.turn_taking.backchannel_words import LANGUAGES, listening_words
from agent.turn_taking.barge_in import BargeIn, DuckBot, Interrupt, ResumeBot
from agent.turn_taking.confidence import Heard
from agent.turn_taking.cues import BACKCHANNELS, backchannel, interrupts
from agent.turn_taking.strategies import TurnTakingConfig
from tts_service.runtime import EngineRuntime

OTHERS = [language for language in LANGUAGES if language != "en"]
#: per language: one listener's sounds, and one real question a caller asks over the bot
SAID = {
    "es": ("Sí, claro.", "¿A qué hora abren mañana?"),
    "fr": ("Oui, d'accord.", "Vous fermez à quelle heure ?"),
    "de": ("Ja, genau.", "Wann machen Sie morgen auf?"),
    "it": ("Sì, certo.", "A che ora aprite domani?"),
    "pt": ("Sim, entendi.", "A que horas vocês abrem amanhã?"),
    "nl": ("Ja, precies.", "Hoe laat gaan jullie morgen open?"),
}


def speaking(language: str) -> BargeIn:
    words = listening_words(language)
    barge = BargeIn(backchannels=words.backchannels, stop_words=words.stop_words)
    barge.bot_started(0.0)
    return barge


def test_every_language_with_a_table_has_a_listener_and_a_question() -> None:
    assert set(SAID) == set(OTHERS)


@pytest.mark.parametrize("language", OTHERS)
def test_each_phrase_is_a_backchannel_and_each_stop_word_interrupts(language: str) -> None:
    words = listening_words(language)
    for phrase in words.backchannels:
        assert backchannel(phrase, words.backchannels), (language, phrase)
    for stop in words.stop_words:
        assert interrupts(stop, words.backchannels, words.stop_words), (language, stop)
        assert stop not in [p for p in words.backchannels if " " not in p], (language, stop)


@pytest.mark.parametrize("language", OTHERS)
def test_a_listeners_words_resume_the_bot_and_a_question_interrupts_it(language: str) -> None:
    listener, question = SAID[language]
    barge = speaking(language)
    barge.speech_started(1.0)
    assert barge.words(listener, 1.4, final=True) == [DuckBot()]
    assert barge.speech_stopped(1.45) == []
    assert barge.audio_read(0.35, 1.8) == [ResumeBot(listener)]  # 0.35 s of quiet audio
    asked = speaking(language)
    asked.speech_started(1.0)
    assert asked.words(question, 2.2, final=True) == [Interrupt(question)]


def test_a_stop_word_in_the_callers_language_stops_the_bot_however_short() -> None:
    barge = speaking("es")
    barge.speech_started(1.0)
    assert barge.words("Espera.", 1.3, final=True, heard=Heard.of([("espera", 0.9)])) == [
        Interrupt("Espera.")
    ]
    english = speaking("en")  # the English lists know no "espera": two words, a backchannel so far
    english.speech_started(1.0)
    assert english.words("Espera.", 1.3, final=True, heard=Heard.of([("espera", 0.9)])) != [
        Interrupt("Espera.")
    ]


def test_a_region_reads_its_languages_table_and_an_unknown_language_keeps_the_english_lists() -> None:
    assert listening_words("es-MX") == listening_words("es") == listening_words("ES_es")
    assert listening_words("sv").backchannels == BACKCHANNELS
    assert listening_words("en-GB").backchannels == BACKCHANNELS


def test_warmline_call_gives_the_barge_in_the_callers_language() -> None:
    """Four words of German listening resume the bot of a German call and interrupt an English one."""
    pytest.importorskip("openai")
    runtime = EngineRuntime(TwoLanguages())
    german = default_parts(runtime, AgentSettings(language="de", **OPENAI))  # type: ignore[arg-type]
    english = default_parts(runtime, AgentSettings(**OPENAI))  # type: ignore[arg-type]
    said = "Alles klar, ich verstehe."
    acts = {}
    for name, parts in (("de", german), ("en", english)):
        assert isinstance(parts.turn_taking, TurnTakingConfig)
        barge = parts.turn_taking.barge_in()
        barge.bot_started(0.0)
        barge.speech_started(1.0)
        acts[name] = (
            barge.words(said, 1.7, final=True) + barge.speech_stopped(1.75) + barge.audio_read(0.35, 2.1)
        )
    assert acts == {"de": [DuckBot(), ResumeBot(said)], "en": [Interrupt(said)]}
