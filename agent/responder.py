"""A DEMO responder: a scripted, offline stand-in for the LLM, so ``warmline call`` works with no API key.

    responder = DemoResponder()       # in the pipeline where the LLM service would be

It is not a language model. On each ``LLMContextFrame`` it reads the last user message, picks one
of a few scripted intents (greeting, booking a table, opening hours, weather, goodbye, fallback)
by keywords, and streams the answer as an LLM would: ``LLMFullResponseStartFrame``, one
``LLMTextFrame`` per token (a word and its trailing space) at ``tokens_per_s`` after a first-token
delay, then ``LLMFullResponseEndFrame``. An ``InterruptionFrame`` (the caller barged in) cancels
the stream at once: no further token and no end frame of that answer are pushed.

The stream runs in one task named after the processor, owned here: cancelled and awaited on
interruption, on a new context, and at the end of the pipeline. Pacing uses the event loop's
monotonic clock. This module never touches the network and never swallows ``CancelledError``.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, cast

from pipecat.frames.frames import (
    CancelFrame,
    EndFrame,
    Frame,
    InterruptionFrame,
    LLMContextFrame,
    LLMFullResponseEndFrame,
    LLMFullResponseStartFrame,
    LLMTextFrame,
)
from pipecat.processors.frame_processor import FrameDirection, FrameProcessor

DEFAULT_TOKENS_PER_S = 30.0
DEFAULT_FIRST_TOKEN_S = 0.05

_WORD = re.compile(r"[a-z]+(?:'[a-z]+)*")


@dataclass(frozen=True, slots=True)
class Intent:
    """One scripted intent: any of ``keywords`` in the user's words selects ``answer``."""

    name: str
    keywords: frozenset[str]
    answer: str


#: the demo script, tried in order; the first intent with a keyword in the user's words wins
DEMO_INTENTS: tuple[Intent, ...] = (
    Intent(
        "goodbye",
        frozenset({"bye", "goodbye", "thanks", "thank"}),
        "You are welcome. Thank you for calling, and have a lovely day. Goodbye!",
    ),
    Intent(
        "booking",
        frozenset({"book", "booking", "table", "reserve", "reservation"}),
        "Of course. I can book a table for two at eight tonight. "
        "Shall I put it under the name on this phone number?",
    ),
    Intent(
        "hours",
        frozenset({"open", "opens", "opened", "opening", "close", "closes", "closing", "hours", "time"}),
        "We open at nine in the morning and close at ten at night.",
    ),
    Intent(
        "weather",
        frozenset({"weather", "rain", "sunny", "sun", "warm", "cold"}),
        "It is sunny and mild today, about twenty degrees, so the terrace is open this evening.",
    ),
    Intent(
        "greeting",
        frozenset({"hello", "hi", "hey", "morning", "evening", "afternoon"}),
        "Hello, and thank you for calling. How can I help you today?",
    ),
)
FALLBACK = Intent(
    "fallback",
    frozenset(),
    "Sorry, I did not catch that. You can ask about our opening hours, the weather, or booking a table.",
)

#: the fallback in the languages ``warmline call --language`` takes with the demo: the intents'
#: keywords are English, so in another language every answer is this one, in that language
FALLBACKS: dict[str, str] = {
    "en": FALLBACK.answer,
    "de": "Entschuldigung, das habe ich nicht verstanden. Ohne Sprachmodell versteht die Demo nur Englisch.",
    "fr": "Désolé, je n'ai pas compris. Sans modèle de langage, la démo ne comprend que l'anglais.",
    "es": "Lo siento, no lo he entendido. Sin un modelo de lenguaje, la demo solo entiende inglés.",
    "it": "Mi dispiace, non ho capito. Senza un modello linguistico, la demo capisce solo l'inglese.",
    "pt": "Desculpe, não entendi. Sem um modelo de linguagem, a demonstração só entende inglês.",
    "nl": "Sorry, dat heb ik niet verstaan. Zonder taalmodel verstaat de demo alleen Engels.",
    "pl": "Przepraszam, nie zrozumiałem. Bez modelu językowego demo rozumie tylko angielski.",
    "ru": "Извините, я не понял. Без языковой модели демо понимает только английский.",
    "tr": "Üzgünüm, anlayamadım. Dil modeli olmadan demo yalnızca İngilizce anlıyor.",
    "ja": "すみません、聞き取れませんでした。言語モデルなしのデモは英語しか分かりません。",
    "zh": "抱歉，我没听懂。没有语言模型时，演示只懂英语。",
}


def demo_fallback(language: str) -> Intent | None:
    """The demo's fallback in ``language`` (BCP 47: "de", "pt-BR"), or None where it has none."""
    answer = FALLBACKS.get(language.strip().replace("_", "-").split("-")[0].lower())
    return None if answer is None else Intent("fallback", frozenset(), answer)


#: phrases a caller of the demo is likely to say: a closed STT grammar for a robust demo
DEMO_PHRASES: tuple[str, ...] = (
    "hello",
    "hi there",
    "good morning",
    "what time do you open",
    "when do you open",
    "what are your opening hours",
    "when do you close",
    "can i book a table for two",
    "i would like to book a table",
    "i want to make a reservation",
    "what is the weather like",
    "is it sunny today",
    "thank you goodbye",
    "goodbye",
    "wait stop please",
    "wait",
    "stop please",
    "stop",
    "no",
    "yes please",
    # the halves of a question a caller pauses in (the turn-taking waits for the second)
    "i would like to book a table for",
    "two people at eight",
    "can i get a table for",
    "four people tonight",
    "do you have a table near",
    "the window",
    "is it possible to",
    "bring a dog",
    "we are looking for",
    "something quiet",
    # backchannels: the caller listening, not taking the turn
    "yeah",
    "uh huh",
    "mm hmm",
    "okay",
    "right",
    "sure",
)


def pick_intent(
    user_text: str, intents: Sequence[Intent] = DEMO_INTENTS, fallback: Intent = FALLBACK
) -> Intent:
    """The first intent whose keywords meet the words of ``user_text``; ``fallback`` if none."""
    words = set(_WORD.findall(user_text.lower()))
    for intent in intents:
        if intent.keywords & words:
            return intent
    return fallback


def tokens_of(text: str) -> list[str]:
    """``text`` cut as an LLM streams it: each word with the whitespace that follows it."""
    return re.findall(r"\S+\s*", text)


def last_user_text(messages: Sequence[Mapping[str, Any] | Any]) -> str:
    """What the caller said since the bot last spoke: the trailing user messages of an LLM context,
    joined ("" when there are none). A caller who paused mid-sentence long enough to end the turn,
    then went on before hearing a word of the answer, left two user messages in a row."""
    said: list[str] = []
    for message in reversed(messages):
        if not isinstance(message, Mapping) or message.get("role") == "system":
            continue
        if message.get("role") != "user":
            break
        said.append(_text_of(message.get("content")))
    return " ".join(t for t in reversed(said) if t)


def _text_of(content: object) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [p.get("text", "") for p in content if isinstance(p, Mapping) and p.get("type") == "text"]
        return " ".join(str(p) for p in parts)
    return ""


class DemoResponder(FrameProcessor):
    """DEMO ONLY: scripted answers streamed like LLM tokens, in the LLM's place (see the module doc)."""

    def __init__(
        self,
        *,
        intents: Sequence[Intent] = DEMO_INTENTS,
        fallback: Intent = FALLBACK,
        tokens_per_s: float = DEFAULT_TOKENS_PER_S,
        first_token_s: float = DEFAULT_FIRST_TOKEN_S,
        **kwargs: Any,
    ) -> None:
        if tokens_per_s <= 0:
            raise ValueError("tokens_per_s must be positive")
        super().__init__(**kwargs)
        self._intents = tuple(intents)
        self._fallback = fallback
        self._token_s = 1.0 / tokens_per_s
        self._first_token_s = first_token_s
        self._stream: asyncio.Task[None] | None = None
        #: (user text, intent name) of every answer started, in order
        self.answers: list[tuple[str, str]] = []

    async def process_frame(self, frame: Frame, direction: FrameDirection) -> None:
        await super().process_frame(frame, direction)
        if isinstance(frame, LLMContextFrame):
            if frame.speculation:
                return  # a provisional context: answer only the committed turn
            await self._stop_stream()
            user_text = last_user_text(frame.context.get_messages())
            intent = pick_intent(user_text, self._intents, self._fallback)
            self.answers.append((user_text, intent.name))
            self._stream = self.create_task(self._speak(intent.answer), f"{self.name}-stream")
            return
        if isinstance(frame, (InterruptionFrame, EndFrame, CancelFrame)):
            # Stop the stream before passing the frame on (no token of this answer may follow it),
            # but wait for the task to wind down only after: a barge-in should not queue behind it.
            stream, self._stream = self._stream, None
            if stream is not None:
                stream.cancel()
            await self.push_frame(frame, direction)
            if stream is not None:
                await self.cancel_task(stream)
            return
        await self.push_frame(frame, direction)

    async def cleanup(self) -> None:
        await self._stop_stream()
        # FrameProcessor.cleanup is unannotated; its signature is known, so cast instead of ignoring.
        await cast(Callable[[], Awaitable[None]], super().cleanup)()

    @property
    def streaming(self) -> bool:
        """True while an answer is being streamed."""
        return self._stream is not None and not self._stream.done()

    async def _stop_stream(self) -> None:
        stream, self._stream = self._stream, None
        if stream is not None and not stream.done():
            await self.cancel_task(stream)

    async def _speak(self, answer: str) -> None:
        """Stream ``answer`` token by token at the configured pace (loop clock, no drift)."""
        loop = asyncio.get_running_loop()
        t0 = loop.time() + self._first_token_s
        await self.push_frame(LLMFullResponseStartFrame())
        for i, token in enumerate(tokens_of(answer)):
            delay_s = t0 + i * self._token_s - loop.time()
            if delay_s > 0:
                await asyncio.sleep(delay_s)
            await self.push_frame(LLMTextFrame(token))
        await self.push_frame(LLMFullResponseEndFrame())


__all__ = [
    "DEFAULT_FIRST_TOKEN_S",
    "DEFAULT_TOKENS_PER_S",
    "DEMO_INTENTS",
    "DEMO_PHRASES",
    "FALLBACK",
    "FALLBACKS",
    "DemoResponder",
    "Intent",
    "demo_fallback",
    "last_user_text",
    "pick_intent",
    "tokens_of",
]
