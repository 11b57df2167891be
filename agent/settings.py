"""``warmline call``'s settings, and the parts of every call they choose.

    settings = AgentSettings(stt="whisper", llm_model="gpt-4o-mini")
    parts = default_parts(runtime, settings)   # VAD, turn-taking, STT factory, LLM or the demo

``AgentSettings`` is how the agent server listens and which brain it uses: the address and
token, the LLM endpoint (none: the scripted demo responder), the STT, the VAD and the
turn-taking, by name. ``default_parts`` resolves the names into ``pipeline.AgentParts``; an
unknown name, or a missing package or key, raises ``InvalidInputError`` here, before any call.
``openai_llm`` builds the factory of Pipecat's OpenAI-compatible LLM service.

The server that uses them is ``agent.server``; this module serves nothing and loads no model.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable
from dataclasses import dataclass

from pipecat.processors.frame_processor import FrameProcessor

from agent.pipeline import SYSTEM_PROMPT, AgentParts, agent_tts
from agent.responder import DEMO_PHRASES, FALLBACKS, DemoResponder, demo_fallback
from agent.stt.choice import DEFAULT_STT, STTFactory, stt_factory
from agent.turn_taking.backchannel_words import listening_words
from agent.turn_taking.barge_in import BargeIn
from agent.turn_taking.strategies import TurnTakingConfig
from agent.vad import VAD_ANALYZERS
from tts_service.errors import InvalidInputError
from tts_service.languages import choose_voice
from tts_service.runtime import EngineRuntime

#: the turn-taking ``warmline call --turn-taking`` offers, by name (None: the fast VAD-only one)
TURN_TAKING: dict[str, TurnTakingConfig | None] = {"smart": TurnTakingConfig(), "fast": None}


@dataclass(frozen=True, slots=True)
class AgentSettings:
    """How the agent server listens and which brain it uses."""

    host: str = "127.0.0.1"
    port: int = 7860
    token: str | None = dataclasses.field(default=None, repr=False)
    insecure: bool = False
    #: an OpenAI-compatible endpoint (OpenAI, Ollama, vLLM, Groq...); None with no model: the demo
    llm_base_url: str | None = None
    llm_model: str | None = None
    llm_api_key: str | None = dataclasses.field(default=None, repr=False)
    #: recognize only the demo script's phrases (robust on phone audio) instead of open English
    demo_grammar: bool = False
    #: host in the TwiML's wss:// URL (None: the webhook request's Host header)
    public_host: str | None = None
    #: the Twilio account's auth token: /twiml and /twilio then want Twilio's request signature
    twilio_auth_token: str | None = dataclasses.field(default=None, repr=False)
    #: Telnyx's Ed25519 public key (base64): /texml then wants Telnyx's signature
    telnyx_public_key: str | None = dataclasses.field(default=None, repr=False)
    #: the Plivo account's auth token: /plivo/answer then wants Plivo's V3 signature
    plivo_auth_token: str | None = dataclasses.field(default=None, repr=False)
    #: ``KEY:TOKEN`` of the Basic auth in Exotel's Voicebot applet URL: /exotel then wants it
    exotel_basic_auth: str | None = dataclasses.field(default=None, repr=False)
    #: the Vonage account's signature secret: /vonage/answer then wants its signed-webhook JWT
    vonage_signature_secret: str | None = dataclasses.field(default=None, repr=False)
    max_calls: int = 16
    #: TCP port of the Asterisk AudioSocket listener, on ``host`` (None: off; 0: any free port)
    audiosocket_port: int | None = None
    #: the VAD by its name in ``vad.VAD_ANALYZERS``: "silero" (default) or "webrtc" (light, 8 kHz phones)
    vad: str = "silero"
    #: "smart" (default): turn ends by silence, Smart Turn and the words, a speculative answer held
    #: ready, take-back barge-ins; "fast": the turn ends at the VAD stop, any speech interrupts
    turn_taking: str = "smart"
    #: the STT by its name in ``agent.stt.choice.STT_CHOICES``: "whisper-tiny" (default, offline),
    #: "pocketsphinx" (offline, streaming), "whisper", "openai" (any OpenAI-compatible endpoint) or
    #: "deepgram"
    stt: str = DEFAULT_STT
    #: the STT's model and endpoint (None: the service's own)
    stt_model: str | None = None
    stt_base_url: str | None = None
    #: the chosen STT's key ($OPENAI_API_KEY for openai, $DEEPGRAM_API_KEY for deepgram)
    stt_api_key: str | None = dataclasses.field(default=None, repr=False)
    #: the callers' language (BCP 47): the STT's, the TTS voice's and the demo's; the turn-taking's
    #: word cues are English, so in another language the audio and the silence decide
    language: str = "en"

    @property
    def english(self) -> bool:
        return self.language.strip().replace("_", "-").split("-")[0].lower() == "en"

    @property
    def uses_llm(self) -> bool:
        return bool(self.llm_base_url or self.llm_model or self.llm_api_key)

    def build_stt_factory(self) -> STTFactory:
        """The factory of every call's STT; a missing package or key raises ``InvalidInputError`` now."""
        return stt_factory(
            self.stt,
            model=self.stt_model,
            base_url=self.stt_base_url,
            api_key=self.stt_api_key,
            grammar=DEMO_PHRASES if self.demo_grammar else None,
            language=self.language,
        )


def openai_llm(settings: AgentSettings) -> Callable[[], FrameProcessor]:
    """A factory of Pipecat's OpenAI LLM service for ``settings``' endpoint and model."""
    try:
        from pipecat.services.openai.llm import OpenAILLMService
    except ImportError as exc:
        raise InvalidInputError(
            f"the LLM needs the openai client: pip install 'pipecat-ai[openai]' ({exc})"
        ) from exc
    model = settings.llm_model or "gpt-4o-mini"

    def make() -> FrameProcessor:
        return OpenAILLMService(
            api_key=settings.llm_api_key or "not-needed",  # local servers (Ollama, vLLM) take any key
            base_url=settings.llm_base_url,
            settings=OpenAILLMService.Settings(model=model),
        )

    return make


def default_parts(runtime: EngineRuntime, settings: AgentSettings) -> AgentParts:
    """The parts of every call: demo responder or an OpenAI-compatible LLM, the settings' STT and
    VAD (an unknown name, or a missing package or key, raises ``InvalidInputError``)."""
    try:
        vad = VAD_ANALYZERS[settings.vad]
    except KeyError as exc:
        known = ", ".join(sorted(VAD_ANALYZERS))
        raise InvalidInputError(f"unknown VAD {settings.vad!r}; known: {known}") from exc
    if settings.turn_taking not in TURN_TAKING:
        raise InvalidInputError(
            f"unknown turn-taking {settings.turn_taking!r}; known: {', '.join(TURN_TAKING)}"
        )
    turn_taking = TURN_TAKING[settings.turn_taking]
    if turn_taking is not None and not settings.english:  # the word cues would misread the words
        listening = listening_words(settings.language)  # but a backchannel is known by its words
        turn_taking = dataclasses.replace(
            turn_taking,
            policy=dataclasses.replace(turn_taking.policy, words=False),
            barge_in=functools.partial(
                BargeIn, backchannels=listening.backchannels, stop_words=listening.stop_words
            ),
        )
    parts = AgentParts(runtime=runtime, vad=vad, turn_taking=turn_taking)
    if settings.uses_llm:
        prompt = f"{SYSTEM_PROMPT} Always answer in the language whose BCP 47 code is {settings.language!r}."
        parts = dataclasses.replace(
            parts, llm=openai_llm(settings), system_prompt=SYSTEM_PROMPT if settings.english else prompt
        )
    elif not settings.english:
        fallback = demo_fallback(settings.language)
        if fallback is None:
            raise InvalidInputError(
                f"the demo responder has no answer in {settings.language!r} (it has {', '.join(FALLBACKS)}): "
                "give an LLM (--llm-model or --llm-base-url)"
            )
        parts = dataclasses.replace(
            parts, llm=functools.partial(DemoResponder, intents=(), fallback=fallback)
        )
    backend = runtime.backend  # a voice that speaks the language, else UnsupportedLanguageError now
    voice = choose_voice(backend, current=backend.default_voice, voice=None, language=settings.language)
    tts = functools.partial(agent_tts, voice=voice)
    return dataclasses.replace(parts, tts=tts, stt=settings.build_stt_factory())


__all__ = ["TURN_TAKING", "AgentSettings", "default_parts", "openai_llm"]
