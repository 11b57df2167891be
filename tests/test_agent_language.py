"""``warmline call --language``: the STT, the TTS voice, the demo's fallback and the turn-taking
in the callers' language, or a refusal at start that says what can."""

from __future__ import annotations

import dataclasses

import pytest
from toy_backends import ToneBackend

import agent.call_cli as call_cli
from agent.cli import main
from agent.responder import DemoResponder, demo_fallback, pick_intent
from agent.settings import AgentSettings, default_parts
from agent.stt.choice import stt_factory
from agent.turn_taking.policy import TurnEndPolicy
from agent.turn_taking.strategies import TurnTakingConfig
from tts_service.errors import InvalidInputError, UnsupportedLanguageError
from tts_service.runtime import EngineRuntime

OPENAI = {"stt": "openai", "stt_base_url": "http://127.0.0.1:1/v1"}


class TwoLanguages(ToneBackend):
    """Voice "a" speaks English, "b" German (as piper's voices say with ``voice_language``)."""

    def voice_language(self, voice: str) -> str:
        return {"a": "en-US", "b": "de-DE"}[voice]


@pytest.mark.parametrize("stt", ["whisper-tiny", "pocketsphinx"])
def test_an_english_only_stt_refuses_another_language_naming_those_that_take_one(stt: str) -> None:
    with pytest.raises(InvalidInputError, match=r"English only, not 'de'.*--stt whisper, openai or deepgram"):
        stt_factory(stt, language="de")


def test_warmline_call_refuses_german_with_the_default_stt(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    served: list[AgentSettings] = []

    async def fake_serve(s: AgentSettings, **options: object) -> None:
        served.append(s)

    monkeypatch.setattr("agent.server.serve_agent", fake_serve)
    monkeypatch.setattr(call_cli, "_quiet_pipecat", lambda *, verbose: None)
    for name in ("WARMLINE_STT", "WARMLINE_LANGUAGE"):
        monkeypatch.delenv(name, raising=False)
    assert main(["call", "--port", "0", "--language", "de"]) == 2
    assert "--stt whisper, openai or deepgram" in capsys.readouterr().err
    assert served == []
    assert main(["call", "--port", "0", "--voices-dir", "/nowhere"]) == 2
    assert "--voices-dir goes with --backend piper" in capsys.readouterr().err


def test_warmline_call_hands_the_language_and_the_voices_to_the_server(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls: list[tuple[AgentSettings, dict[str, object]]] = []

    async def fake_serve(s: AgentSettings, *, backend_options: dict[str, object], **options: object) -> None:
        calls.append((s, backend_options))

    monkeypatch.setattr("agent.server.serve_agent", fake_serve)
    monkeypatch.setattr(call_cli, "_quiet_pipecat", lambda *, verbose: None)
    monkeypatch.delenv("WARMLINE_STT", raising=False)
    monkeypatch.setenv("WARMLINE_LANGUAGE", "fr")
    pytest.importorskip("openai")
    argv = ["--stt", "openai", "--stt-base-url", "http://127.0.0.1:1/v1"]
    assert main(["call", "--port", "0", *argv]) == 0
    assert (
        main(["call", "--port", "0", *argv, "--language", "de", "--backend", "piper", "--voices-dir", "v"])
        == 0
    )
    assert [(s.language, opts) for s, opts in calls] == [("fr", {}), ("de", {"voices_dir": "v"})]


def test_the_tts_voice_is_one_that_speaks_the_language() -> None:
    pytest.importorskip("openai")
    runtime = EngineRuntime(TwoLanguages())
    german = default_parts(runtime, AgentSettings(language="de", **OPENAI))  # type: ignore[arg-type]
    assert german.tts(runtime)._settings.voice == "b"  # type: ignore[attr-defined]
    english = default_parts(runtime, AgentSettings(**OPENAI))  # type: ignore[arg-type]
    assert english.tts(runtime)._settings.voice == "a"  # type: ignore[attr-defined]
    with pytest.raises(UnsupportedLanguageError, match="no loaded voice speaks 'fr'"):
        default_parts(runtime, AgentSettings(language="fr", **OPENAI))  # type: ignore[arg-type]
    with pytest.raises(UnsupportedLanguageError):  # an English-only backend
        default_parts(EngineRuntime(ToneBackend()), AgentSettings(language="de", **OPENAI))  # type: ignore[arg-type]


def test_the_demo_answers_its_fallback_in_the_language() -> None:
    pytest.importorskip("openai")
    runtime = EngineRuntime(TwoLanguages())
    parts = default_parts(runtime, AgentSettings(language="de", **OPENAI))  # type: ignore[arg-type]
    responder = parts.llm()
    assert isinstance(responder, DemoResponder)
    fallback = demo_fallback("de-AT")
    assert fallback is not None and fallback.answer.startswith("Entschuldigung")
    # "hallo" would meet no English keyword anyway; "hi" would: no English intent answers in German
    assert pick_intent("hi", (), fallback) is fallback
    assert demo_fallback("sv") is None
    with pytest.raises(InvalidInputError, match=r"demo responder has no answer in 'sv'.*--llm-model"):
        default_parts(EngineRuntime(TwoLanguages()), AgentSettings(language="sv", **OPENAI))  # type: ignore[arg-type]


def test_the_word_cues_are_off_in_another_language() -> None:
    pytest.importorskip("openai")
    runtime = EngineRuntime(TwoLanguages())
    german = default_parts(runtime, AgentSettings(language="de", **OPENAI))  # type: ignore[arg-type]
    english = default_parts(runtime, AgentSettings(**OPENAI))  # type: ignore[arg-type]
    assert isinstance(german.turn_taking, TurnTakingConfig) and not german.turn_taking.policy.words
    assert isinstance(english.turn_taking, TurnTakingConfig) and english.turn_taking.policy.words
    fast = default_parts(runtime, AgentSettings(language="de", turn_taking="fast", **OPENAI))  # type: ignore[arg-type]
    assert fast.turn_taking is None


@pytest.mark.parametrize(
    "text", ["I would like to", "What time do you open", "Well,", "Ich möchte einen Tisch für"]
)
def test_without_words_the_audio_and_the_silence_decide(text: str) -> None:
    policy = TurnEndPolicy()
    blind = dataclasses.replace(policy, words=False)
    assert blind.verdict(text, 0.9) == (policy.audio_gap_s, "audio")
    assert blind.verdict(text, 0.1) == (policy.hesitation_gap_s, "hesitant")
    assert blind.verdict(text, None) == (policy.unsure_gap_s, "unsure")
    assert not blind.unfinished(text)
    assert blind.speculate_after_s(text) == pytest.approx(policy.audio_gap_s - policy.speculate_lead_s)


def test_with_words_the_english_cues_still_count() -> None:
    policy = TurnEndPolicy()
    assert policy.verdict("I would like to", 0.9) == (policy.unfinished_gap_s, "unfinished")
    assert policy.verdict("What time do you open", 0.9) == (policy.complete_gap_s, "complete")
