"""Turn-taking end to end over a simulated phone line: ``warmline call``'s app, its default parts.

The caller (``transports.twilio.carrier``, and Telnyx's, Plivo's, Exotel's, Vonage's and Asterisk's
simulated carriers for the take-back; each carrier's barge-in is ``test_carrier_calls``') speaks in
hibari's voice, made in this test: a question
with a hesitation after an unfinished phrase, a backchannel over the answer, a real barge-in.
The bot must not answer in the hesitation, must keep its answer through the backchannel (the
caller hears every word of it once: judged by the recognizer), and must stop at a real barge-in
with one ``clear`` and nothing of that answer after it. Waits are bounded in carrier ticks.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from asr import DISTRACTORS, normalize
from websockets.asyncio.client import ClientConnection, connect

from agent.responder import DEMO_INTENTS, FALLBACK, pick_intent
from agent.server import AgentSettings, CallRecord, create_agent_app
from agent.settings import TURN_TAKING
from agent.turn_taking.barge_in import BargeIn
from transports.asterisk.carrier import AsteriskPbx
from transports.exotel.carrier import ExotelCarrier
from transports.plivo.carrier import PlivoCarrier
from transports.serve import serving
from transports.telnyx.carrier import TelnyxCarrier
from transports.twilio import protocol as tp
from transports.twilio.carrier import Carrier
from transports.vonage.carrier import VonageCarrier
from transports.ws.settings import ServerSettings
from tts_service import g711
from tts_service.engine.ports import Backend
from tts_service.pipecat.frames import DUCK_GAIN_DB
from tts_service.runtime import EngineRuntime
from tts_service.speech import spoken_pcm

MAX_TICKS = 1500  # 30 s of 20 ms ticks: a bound against hangs, never a timing assertion
HESITATION_S = 0.8


def mulaw(backend: Backend, text: str) -> bytes:
    return g711.encode(spoken_pcm(backend, text, 8000)).tobytes()


def silence(seconds: float) -> bytes:
    return bytes([0xFF]) * int(8000 * seconds)


def words(text: str) -> list[str]:
    return list(normalize(text))


Scenario = Callable[[Carrier, Backend], Awaitable[dict[str, Any]]]
#: each carrier ``warmline call`` answers: its stream route and its simulated carrier
CARRIERS: dict[str, tuple[str, Callable[[ClientConnection], Carrier]]] = {
    "twilio": ("/twilio", Carrier),
    "telnyx": ("/telnyx", TelnyxCarrier),
    "plivo": ("/plivo", PlivoCarrier),
    "exotel": ("/exotel", ExotelCarrier),
    "vonage": ("/vonage", VonageCarrier),
    "asterisk": ("/asterisk", AsteriskPbx),
}


def call(
    backend: Backend, scenario: Scenario, carrier_name: str = "twilio", settings: AgentSettings | None = None
) -> tuple[Carrier, CallRecord, dict[str, Any]]:
    """One phone call to the agent running ``scenario`` (``settings``: the demo's closed grammar
    by default); the carrier, the call's record, its notes."""
    path, make_carrier = CARRIERS[carrier_name]
    out: dict[str, Any] = {}

    async def main() -> None:
        async with EngineRuntime(backend, workers=1) as runtime:
            app = create_agent_app(runtime, settings or AgentSettings(demo_grammar=True))
            async with serving(app, ServerSettings(), host="127.0.0.1", port=0) as (host, port):
                async with connect(f"ws://{host}:{port}{path}", max_size=None) as ws:
                    carrier = make_carrier(ws)
                    clock = asyncio.create_task(carrier.run(), name="test-carrier")
                    try:
                        await carrier.begin()
                        await carrier.wait_until(lambda c: c.tick >= 10, max_ticks=MAX_TICKS)
                        out["notes"] = await scenario(carrier, backend)
                        await carrier.end()
                    finally:
                        clock.cancel()
                        await asyncio.gather(clock, return_exceptions=True)
                for _ in range(300):
                    if app.state.agent.calls[carrier_name] == 0:
                        break
                    await asyncio.sleep(0.01)
                out["record"] = app.state.agent.recent[-1]
                out["carrier"] = carrier

    asyncio.run(main())
    return out["carrier"], out["record"], out["notes"]


def test_a_hesitation_after_an_unfinished_phrase_is_not_answered_and_both_halves_are_one_turn(
    hibari_backend: Backend,
) -> None:
    """ "Can I get a table for" ... 0.8 s ... "four people tonight": no bot audio in the pause."""

    async def scenario(carrier: Carrier, backend: Backend) -> dict[str, Any]:
        first = mulaw(backend, "Can I get a table for")
        second = mulaw(backend, "four people tonight.")
        utterance = carrier.say(first + silence(HESITATION_S) + second)
        assert await carrier.wait_until(lambda c: c.idle_for(40) and utterance.done, max_ticks=MAX_TICKS)
        return {"caller_done_s": utterance.sent_s[-1]}

    carrier, record, notes = call(hibari_backend, scenario)
    users = [m["content"] for m in record.messages if m["role"] == "user"]
    assert [words(u) for u in users] == [words("can i get a table for four people tonight")]
    assert len(record.turns) == 1 and not record.turns[0].interrupted
    media = [r.time_s for r in carrier.log.received if isinstance(r.message, tp.OutboundMedia)]
    assert media, "the bot never answered"
    assert min(media) > notes["caller_done_s"], "the bot spoke before the caller had finished"
    assert carrier.log.clears == [] and carrier.log.violations == []


# one carrier of each kind of stream: JSON with marks (twilio; telnyx, plivo and exotel speak
# dialects of it, and each one's acknowledged words are tested in test_carrier_calls.py), binary
# audio (vonage) and a PBX's text commands (asterisk); every one of them in a whole call costs CI
# half a minute more
@pytest.mark.parametrize("carrier_name", ["twilio", "vonage", "asterisk"])
def test_a_backchannel_over_the_answer_keeps_it_and_every_word_is_heard_once(
    carrier_name: str, hibari_backend: Backend, recognizer: Callable[..., str | None]
) -> None:
    """ "Uh huh." mid-answer: the bot pauses and resumes; the whole answer is heard, none of it twice."""
    question = "Can I book a table for two?"
    answer = pick_intent(question).answer

    async def scenario(carrier: Carrier, backend: Backend) -> dict[str, Any]:
        carrier.say(mulaw(backend, question))
        assert await carrier.wait_until(lambda c: len(c.log.echoed) >= 10, max_ticks=MAX_TICKS)
        backchannel = carrier.say(mulaw(backend, "Uh huh."), question=False)
        assert await carrier.wait_until(lambda c: backchannel.done and not c.speaking, max_ticks=MAX_TICKS)
        end = carrier.tick
        assert await carrier.wait_until(
            lambda c: c.last_media_tick > end and c.idle_for(40), max_ticks=MAX_TICKS
        ), "the answer did not resume"
        return {}

    carrier, record, _ = call(hibari_backend, scenario, carrier_name)
    heard = b"".join(p.payload for p in carrier.log.played if p.answer == 1)
    grammar = [answer, *(i.answer for i in DEMO_INTENTS), FALLBACK.answer, *DISTRACTORS]
    assert recognizer(g711.decode(heard), 8000, grammar) == " ".join(normalize(answer))
    assert [words(m["content"]) for m in record.messages if m["role"] == "assistant"] == [words(answer)]
    assert [words(m["content"]) for m in record.messages if m["role"] == "user"] == [words(question)]
    assert len(record.turns) == 1 and not record.turns[0].interrupted
    assert len(carrier.log.clears) == 1  # the pause cleared the line; the resume sent it again
    assert carrier.log.violations == []
    if carrier_name == "twilio":  # the recognizer's "uh huh" ducked the answer back in before the resume
        media = [
            (r.time_s, r.message.payload)
            for r in carrier.log.received
            if isinstance(r.message, tp.OutboundMedia)
        ]
        clear_s = next(r.time_s for r in carrier.log.received if isinstance(r.message, tp.Clear))
        before = {payload for at, payload in media if at < clear_s}
        first_again = next(payload for at, payload in media if at > clear_s)
        duck = g711.gain_table(DUCK_GAIN_DB)
        assert first_again in {payload.translate(duck) for payload in before}, (
            "the cleared audio came back at full level"
        )


# On Twilio through the agent's turn-taking; every other carrier's barge-in (one clear, nothing of
# the answer after it, exactly the acknowledged words kept) is tests/test_carrier_calls.py's, so
# CI's time goes once to each carrier's barge-in, and here to each carrier's take-back above.
@pytest.mark.parametrize("carrier_name", ["twilio"])
def test_a_real_barge_in_stops_the_answer_with_one_clear_and_nothing_after(
    carrier_name: str, hibari_backend: Backend
) -> None:
    """ "Wait, stop please." mid-answer: one clear, no audio of that answer after it, heard words kept."""
    question = "What time do you open?"
    answer = pick_intent(question).answer

    async def scenario(carrier: Carrier, backend: Backend) -> dict[str, Any]:
        carrier.say(mulaw(backend, question))
        assert await carrier.wait_until(lambda c: len(c.log.echoed) >= 8, max_ticks=MAX_TICKS)
        barge = carrier.say(mulaw(backend, "Wait, stop please."))
        assert await carrier.wait_until(lambda c: barge.done and not c.speaking, max_ticks=MAX_TICKS)
        end = carrier.tick
        await carrier.wait_until(lambda c: c.last_media_tick > end and c.idle_for(30), max_ticks=MAX_TICKS)
        return {"barge_in_end_tick": end}

    carrier, record, notes = call(hibari_backend, scenario, carrier_name)
    log = carrier.log
    assert len(log.clears) == 1
    clear_at = next(i for i, r in enumerate(log.received) if isinstance(r.message, tp.Clear))
    after = [r for r in log.received[clear_at + 1 :] if isinstance(r.message, tp.OutboundMedia)]
    assert all(r.tick >= notes["barge_in_end_tick"] for r in after), "audio of the interrupted answer"
    assistant = [words(m["content"]) for m in record.messages if m["role"] == "assistant"]
    assert 0 < len(assistant[0]) < len(words(answer)) and assistant[0] == words(answer)[: len(assistant[0])]
    assert record.turns[0].interrupted
    assert log.violations == []


FIRST, BARGE_IN = "I want to make a reservation.", "Is it sunny today?"


def question_then_barge_in(hibari_backend: Backend) -> list[tuple[str, list[str]]]:
    """A question, and a new one over its answer on the default settings (whisper): the context's
    messages after the system prompt, each (role, its words)."""

    async def scenario(carrier: Carrier, backend: Backend) -> dict[str, Any]:
        carrier.say(mulaw(backend, FIRST))
        assert await carrier.wait_until(lambda c: len(c.log.echoed) >= 12, max_ticks=MAX_TICKS)
        said = carrier.say(mulaw(backend, BARGE_IN))
        assert await carrier.wait_until(lambda c: said.done and not c.speaking, max_ticks=MAX_TICKS)
        end = carrier.tick
        await carrier.wait_until(lambda c: c.last_media_tick > end and c.idle_for(60), max_ticks=MAX_TICKS)
        return {}

    _, record, _ = call(hibari_backend, scenario, settings=AgentSettings())
    return [(m["role"], words(str(m["content"]))) for m in record.messages if m["role"] != "system"]


def test_a_barge_in_whose_words_end_the_turn_at_once_follows_the_bots_heard_words(
    hibari_backend: Backend,
) -> None:
    """With whisper (``warmline call``'s default), a barge-in's final words come after the VAD's
    stop, when its pause has already passed: they interrupt the bot and end the caller's turn in
    the same moment. The bot's heard words still come first in the context, and the LLM answers
    the new question alone (it had got the caller's two questions in a row and answered the
    first)."""
    said = question_then_barge_in(hibari_backend)
    assert [role for role, _ in said] == ["user", "assistant", "user", "assistant"], said
    interrupted, answer = said[1][1], said[3][1]
    assert 0 < len(interrupted) < len(words(pick_intent(FIRST).answer))
    assert interrupted == words(pick_intent(FIRST).answer)[: len(interrupted)]
    assert answer == words(pick_intent(BARGE_IN).answer)


def test_a_barge_ins_words_that_come_after_the_bot_resumed_still_take_the_turn(
    hibari_backend: Backend, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On a loaded machine whisper's words for a barge-in can come after the wait for a noise's
    (``no_words_s``), and the bot had resumed its answer; those words were then dropped, and the
    question never answered (CI's ``test_v2v_bench``). Here the wait is made shorter than any
    transcription (20 ms of audio): the words still interrupt the resumed answer, and the new
    question is answered."""
    hasty = dataclasses.replace(TURN_TAKING["smart"], barge_in=lambda: BargeIn(no_words_s=0.02))
    monkeypatch.setitem(TURN_TAKING, "smart", hasty)
    said = question_then_barge_in(hibari_backend)
    assert [role for role, _ in said] == ["user", "assistant", "user", "assistant"], said
    assert said[3][1] == words(pick_intent(BARGE_IN).answer)
