"""A phone call through the real ``/twilio`` endpoint: a simulated carrier, a Pipecat bot, hibari.

The carrier (``transports.twilio.carrier``) speaks Twilio's exact message shapes on 127.0.0.1,
sends the caller's audio every 20 ms and plays the bot's at real time, echoing marks as their
audio plays. The bot (``agent.sim``) is ``input -> SpeechTrigger -> WarmlineTTSService -> output``
over ``TwilioMediaStreamTransport``. Its engine runs on a clock that never moves, so its 80 ms frames
and their words depend only on the text and can be recomputed offline as the truth.

The barge-in lands right after a mark: the carrier freezes its playback while the caller talks,
so the frames the caller heard are exactly those whose marks were echoed, and no echo can cross
the bot's ``clear`` on the wire.
"""

from __future__ import annotations

import asyncio
import logging
import urllib.error
from collections.abc import AsyncIterator, Callable, Coroutine
from contextlib import asynccontextmanager
from typing import Any

import numpy as np
import pytest
from asr import DISTRACTORS, normalize
from engine_helpers import frames_of, pump
from log_errors import own_errors
from pipecat.frames.frames import EndFrame, InputDTMFFrame, TTSSpeakFrame
from pipecat.frames.frames import Frame as PipecatFrame
from pipecat.pipeline.pipeline import Pipeline
from pipecat.pipeline.worker import PipelineParams, PipelineWorker
from pipecat.processors.frame_processor import FrameDirection, FrameProcessor
from pipecat.workers.runner import WorkerRunner
from starlette.applications import Starlette
from websockets.asyncio.client import ClientConnection, connect

from agent.sim import SpeechTrigger, run_bot
from transports.serve import serving
from transports.twilio import protocol as tp
from transports.twilio.call import TwilioCall
from transports.twilio.carrier import Carrier
from transports.twilio.pipecat_transport import TwilioMediaStreamTransport
from transports.twilio.server import TwilioSettings, twilio_routes
from transports.ws.settings import ServerSettings
from tts_service import g711
from tts_service.engine.ports import Backend
from tts_service.engine.reading.preview import preview
from tts_service.engine.session import EngineSession, SessionConfig
from tts_service.engine.types import SpeechFrame
from tts_service.pipecat.service import WarmlineTTSService
from tts_service.runtime import EngineRuntime

QUESTION_1 = "What time does the store open?"
ANSWER_1 = "The store opens at nine tomorrow morning."
QUESTION_2 = "Can you book a table for two?"
# written forms the voice expands: the heard words (from Twilio's marks) must name them as written
ANSWER_2 = "Sure, $25 books a table for 2 at 8pm tonight, and I will send you the details by message."
BARGE_IN = "Wait, stop please."
#: frames of the second answer the caller hears before talking over it
HEARD_FRAMES = 12
#: bounds on every wait, in 20 ms ticks (safety nets against hangs, not timing assertions)
MAX_TICKS = 1500


def frozen_clock() -> float:
    """A clock that never moves: no hold timer fires, so the frames depend only on the text."""
    return 0.0


def truth_frames(backend: Backend, text: str) -> list[SpeechFrame]:
    """The bot's frames for ``text`` at 8 kHz, computed offline as the service's session makes them."""
    session = EngineSession(backend, SessionConfig(sample_rate=8000), clock=frozen_clock)
    session.start(text)
    session.flush()
    return frames_of(pump(session))


def speech(backend: Backend, text: str) -> bytes:
    """``text`` spoken by hibari, as 8 kHz mu-law (the caller's side of the call)."""
    pcm = np.concatenate([f.samples for f in truth_frames(backend, text)]).astype(np.int16)
    return g711.encode(pcm).tobytes()


def words_of(frames: list[SpeechFrame]) -> list[str]:
    return [w.word for f in frames for w in f.words]


class DtmfLog(FrameProcessor):
    """After the output: the keys the caller pressed."""

    def __init__(self) -> None:
        super().__init__()
        self.digits: list[str] = []

    async def process_frame(self, frame: PipecatFrame, direction: FrameDirection) -> None:
        await super().process_frame(frame, direction)
        if isinstance(frame, InputDTMFFrame):
            self.digits.append(str(frame.button.value))
        await self.push_frame(frame, direction)


class Bot:
    """The bot side of the test: one Pipecat pipeline per call, and what it reported."""

    def __init__(self, runtime: EngineRuntime, answers: list[str]) -> None:
        self.runtime = runtime
        self.answers = answers
        self.heard: dict[str | None, list[str]] = {}
        self.transports: list[TwilioMediaStreamTransport] = []
        self.triggers: list[SpeechTrigger] = []
        self.dtmf = DtmfLog()

    async def __call__(self, call: TwilioCall) -> None:
        transport = TwilioMediaStreamTransport(call)
        self.transports.append(transport)

        async def words_heard(_: Any, words: list[str], context_id: str | None) -> None:
            self.heard.setdefault(context_id, []).extend(words)

        transport.add_event_handler("on_words_heard", words_heard)
        trigger = SpeechTrigger(self.answers)
        self.triggers.append(trigger)
        tts = WarmlineTTSService(runtime=self.runtime)
        await run_bot(transport, tts, trigger, sample_rate=8000, extra=[self.dtmf])


@asynccontextmanager
async def phone_server(backend: Backend, answers: list[str]) -> AsyncIterator[tuple[str, Bot]]:
    """The Twilio routes on 127.0.0.1 with a frozen-clock engine; yields the stream URL and the bot."""
    async with EngineRuntime(backend, workers=1, clock=frozen_clock) as runtime:
        bot = Bot(runtime, answers)
        app = Starlette(routes=twilio_routes(bot, TwilioSettings()))
        async with serving(app, ServerSettings(), host="127.0.0.1", port=0) as (host, port):
            yield f"ws://{host}:{port}/twilio", bot


def run(main: Callable[[], Coroutine[Any, Any, None]]) -> None:
    asyncio.run(main())


@pytest.mark.scenario  # a whole phone call in real time (tests/conftest.py: SCENARIO_MODULES)
def test_a_phone_call_answers_barges_in_clears_once_and_reports_the_heard_words(
    hibari_backend: Backend, recognizer: Callable[..., str | None]
) -> None:
    """Whole answer, then one cut by a barge-in: one clear, nothing after it, heard words exact."""
    truth_1 = truth_frames(hibari_backend, ANSWER_1)
    truth_2 = truth_frames(hibari_backend, ANSWER_2)
    assert len(truth_2) > HEARD_FRAMES + 10
    result: dict[str, Any] = {}

    async def main() -> None:
        async with phone_server(hibari_backend, [ANSWER_1, ANSWER_2]) as (url, bot):
            async with connect(url, max_size=None) as ws:
                carrier = Carrier(ws, parameters={"caller": "test"})
                clock = asyncio.create_task(carrier.run(), name="test-carrier")
                try:
                    await carrier.begin()
                    await scenario(carrier, hibari_backend)
                    await carrier.end()
                finally:
                    clock.cancel()
                    await asyncio.gather(clock, return_exceptions=True)
            for _ in range(200):  # the endpoint winds the call down after stop
                if bot.transports and bot.transports[0].call.end_reason is not None:
                    break
                await asyncio.sleep(0.01)
            result.update(carrier=carrier, bot=bot)

    run(main)
    carrier: Carrier = result["carrier"]
    bot: Bot = result["bot"]
    log = carrier.log
    transport = bot.transports[0]
    assert log.violations == []
    assert transport.call.custom_parameters == {"caller": "test"}
    assert bot.dtmf.digits == ["5"]
    assert transport.call.end_reason is not None and transport.call.end_reason.value == "stop"

    # frame alignment: 20 ms payloads, four per mark, marks named after a continuous frame count
    media = [r.message for r in log.received if isinstance(r.message, tp.OutboundMedia)]
    marks = [r.message.name for r in log.received if isinstance(r.message, tp.OutboundMark)]
    assert {len(m.payload) for m in media} == {tp.CHUNK_BYTES}
    assert len(media) == tp.CHUNKS_PER_FRAME * len(marks)
    assert marks == [f"f{i}" for i in range(len(marks))]

    # clear policy: the question asked into silence sent no clear; the barge-in sent exactly one
    assert len(log.clears) == 1
    clear_index = next(i for i, r in enumerate(log.received) if isinstance(r.message, tp.Clear))
    after_clear = [r for r in log.received[clear_index + 1 :] if isinstance(r.message, tp.OutboundMedia)]
    assert after_clear == []
    assert log.cleared_echoes, "the carrier held audio when the caller barged in"

    # heard words: the first answer in full, the second up to the frames whose marks came back
    contexts = list(bot.heard)
    assert len(contexts) == 2
    assert bot.heard[contexts[0]] == words_of(truth_1)
    echoed_2 = [name for _, name in log.echoed if int(name[1:]) >= len(truth_1)]
    assert len(echoed_2) == HEARD_FRAMES
    assert bot.heard[contexts[1]] == words_of(truth_2[:HEARD_FRAMES])
    assert "$25" in bot.heard[contexts[1]], "a written token is heard as written, not as its expansion"
    assert transport.output().heard_words == words_of(truth_1) + words_of(truth_2[:HEARD_FRAMES])

    # the first answer, as the caller heard it, is recognised at 8 kHz
    heard_1 = b"".join(p.payload for p in log.played if p.answer == 1)
    grammar = [ANSWER_1, preview(ANSWER_2, hibari_backend.capabilities), QUESTION_1, *DISTRACTORS]
    assert recognizer(g711.decode(heard_1), 8000, grammar) == " ".join(normalize(ANSWER_1))


async def scenario(carrier: Carrier, backend: Backend) -> None:
    """Question, whole answer; question, barge-in after ``HEARD_FRAMES`` frames; then silence."""
    await carrier.wait_until(lambda c: c.tick >= 10, max_ticks=MAX_TICKS)
    carrier.say(speech(backend, QUESTION_1))
    assert await carrier.wait_until(lambda c: c.idle_for(50), max_ticks=MAX_TICKS), "no first answer"
    await carrier.press("5")
    carrier.say(speech(backend, QUESTION_2))
    first_2 = len(carrier.log.echoed)
    assert await carrier.wait_until(
        lambda c: len(c.log.echoed) - first_2 >= HEARD_FRAMES, max_ticks=MAX_TICKS
    ), "no second answer"
    carrier.hold_playback = True  # the caller talks over the bot right after this mark
    carrier.say(speech(backend, BARGE_IN), question=False)
    assert await carrier.wait_until(lambda c: bool(c.log.clears), max_ticks=MAX_TICKS), "no clear"
    carrier.hold_playback = False
    await carrier.wait_until(lambda c: not c.speaking, max_ticks=MAX_TICKS)
    await carrier.wait_until(lambda c: False, max_ticks=60)  # 1.2 s more: nothing may follow the clear


def test_malformed_and_out_of_order_streams_end_cleanly_and_other_calls_go_on(
    hibari_backend: Backend, caplog: pytest.LogCaptureFixture
) -> None:
    """Bad base64, wrong size, media before start, silence: one log line each, other calls unaffected."""
    del hibari_backend  # the bad calls never reach the engine
    caplog.set_level(logging.INFO, logger="warmline.twilio")
    bad_streams: list[list[str]] = []
    good = [tp.encode_inbound(tp.Connected())]
    start = tp.Start(1, "MZ1", "AC1", "CA1")
    media = tp.Media(2, "MZ1", "inbound", 1, 20, bytes(160))
    bad_streams.append([*good, tp.encode_inbound(media)])  # media before start
    bad_streams.append(
        [*good, tp.encode_inbound(start), tp.encode_inbound(media).replace('"payload":"', '"payload":"!!')]
    )
    bad_streams.append(
        [*good, tp.encode_inbound(start), tp.encode_inbound(tp.Media(2, "MZ1", "inbound", 1, 20, bytes(100)))]
    )
    bad_streams.append([*good, tp.encode_inbound(start), "{not json"])
    bad_streams.append([*good, tp.encode_inbound(start), tp.encode_inbound(media), tp.encode_inbound(media)])

    async def quiet_bot(call: TwilioCall) -> None:
        await call.ended.wait()

    async def main() -> None:
        settings = TwilioSettings(media_timeout_s=0.5, handshake_timeout_s=2.0)
        app = Starlette(routes=twilio_routes(quiet_bot, settings))
        async with serving(app, ServerSettings(), host="127.0.0.1", port=0) as (host, port):
            url = f"ws://{host}:{port}/twilio"
            async with connect(url) as survivor:  # a good call open through all the bad ones
                for message in (*good, tp.encode_inbound(start)):
                    await survivor.send(message)
                talking = asyncio.create_task(talk(survivor), name="test-survivor")
                for messages in bad_streams:
                    async with connect(url) as ws:
                        for message in messages:
                            await ws.send(message)
                        await asyncio.wait_for(ws.wait_closed(), 10)
                async with connect(url) as ws:  # a stream that goes silent without stop
                    for message in (*good, tp.encode_inbound(tp.Start(1, "MZ2", "AC1", "CA2"))):
                        await ws.send(message)
                    await asyncio.wait_for(ws.wait_closed(), 10)
                talking.cancel()
                sequence = await asyncio.gather(talking, return_exceptions=True)
                assert not survivor.close_code, "the good call was dropped"
                await survivor.send(tp.encode_inbound(tp.Stop(10_000, "MZ1", "AC1", "CA1")))
                await asyncio.wait_for(survivor.wait_closed(), 10)
                del sequence

    async def talk(ws: ClientConnection) -> None:
        """Keep a stream alive: one 20 ms chunk of silence every 100 ms (bounded)."""
        for i in range(2, 2000):
            await ws.send(tp.encode_inbound(tp.Media(i, "MZ1", "inbound", i, 20 * i, bytes([0xFF]) * 160)))
            await asyncio.sleep(0.1)

    run(main)
    lines = [r.getMessage() for r in caplog.records if r.name == "warmline.twilio"]
    assert sum("stream refused (twilio_out_of_order)" in line for line in lines) == 1
    assert sum("(protocol_error): twilio_bad_payload" in line for line in lines) == 2
    assert sum("(protocol_error): twilio_malformed" in line for line in lines) == 1
    assert sum("(protocol_error): twilio_out_of_order" in line for line in lines) == 1
    assert sum("(media_timeout)" in line for line in lines) == 1
    assert sum("stream MZ1 ended (stop)" in line for line in lines) == 1
    assert not own_errors(caplog.records)


def test_streams_that_never_start_cannot_keep_a_real_call_out() -> None:
    """With one call slot, two sockets that connect and say nothing: a real stream is still served
    at once and the silent ones are closed at the handshake bound; silent sockets past
    ``max_pending`` are turned away at once (1013)."""
    served: list[str] = []

    async def bot(call: TwilioCall) -> None:
        served.append(call.start.call_sid)
        await call.ended.wait()

    async def main() -> None:
        settings = TwilioSettings(max_calls=1, max_pending=3, handshake_timeout_s=1.0, media_timeout_s=5.0)
        app = Starlette(routes=twilio_routes(bot, settings))
        async with serving(app, ServerSettings(), host="127.0.0.1", port=0) as (host, port):
            url = f"ws://{host}:{port}/twilio"
            async with connect(url) as silent_1, connect(url) as silent_2, connect(url) as real:
                await real.send(tp.encode_inbound(tp.Connected()))
                await real.send(tp.encode_inbound(tp.Start(1, "MZ9", "AC1", "CA9")))
                for _ in range(100):
                    if served:
                        break
                    await asyncio.sleep(0.02)
                assert served == ["CA9"]  # the one call slot was not held by the silent sockets
                async with connect(url) as silent_3, connect(url) as silent_4:
                    await asyncio.wait_for(silent_4.wait_closed(), 10)
                    assert silent_4.close_code == 1013  # a fourth waiting stream
                    for silent in (silent_1, silent_2, silent_3):
                        await asyncio.wait_for(silent.wait_closed(), 10)
                        assert silent.close_code == 1008  # the handshake bound
                assert not real.close_code
                await real.send(tp.encode_inbound(tp.Stop(2, "MZ9", "AC1", "CA9")))
                await asyncio.wait_for(real.wait_closed(), 10)

    run(main)


def test_twiml_connects_the_call_to_the_stream_endpoint_with_parameters() -> None:
    """POST /twiml returns Connect/Stream to wss://HOST/twilio with the caller's fields as Parameters."""

    async def main() -> None:
        settings = TwilioSettings(parameters={"voice": "heart"})

        async def no_bot(call: TwilioCall) -> None:
            del call

        app = Starlette(routes=twilio_routes(no_bot, settings))
        async with serving(app, ServerSettings(), host="127.0.0.1", port=0) as (host, port):
            body = "CallSid=CA9&From=%2B15550001111&To=%2B15550002222&Ignored=x"
            status, text = await asyncio.to_thread(
                post, f"http://{host}:{port}/twiml", body, "bot.example.com"
            )
        assert status == 200
        assert text == (
            '<?xml version="1.0" encoding="UTF-8"?><Response><Connect>'
            '<Stream url="wss://bot.example.com/twilio">'
            '<Parameter name="voice" value="heart"/>'
            '<Parameter name="From" value="+15550001111"/>'
            '<Parameter name="To" value="+15550002222"/>'
            '<Parameter name="CallSid" value="CA9"/>'
            "</Stream></Connect></Response>"
        )

    run(main)


def test_a_webhook_body_over_64_kib_is_refused_413_and_a_small_one_still_works() -> None:
    """/twiml reads a form only up to its bound; a larger one is refused, not read and answered."""

    async def main() -> None:
        async def no_bot(call: TwilioCall) -> None:
            del call

        app = Starlette(routes=twilio_routes(no_bot))
        async with serving(app, ServerSettings(), host="127.0.0.1", port=0) as (host, port):
            with pytest.raises(urllib.error.HTTPError) as info:
                await asyncio.to_thread(
                    post, f"http://{host}:{port}/twiml", "CallSid=" + "x" * 70_000, "b.example"
                )
            assert info.value.code == 413
            status, _ = await asyncio.to_thread(
                post, f"http://{host}:{port}/twiml", "CallSid=CA1", "b.example"
            )
            assert status == 200

    run(main)


def post(url: str, body: str, host: str) -> tuple[int, str]:
    """POST a form with a given Host header; (status, body)."""
    import urllib.request

    request = urllib.request.Request(
        url, data=body.encode(), headers={"Host": host, "Content-Type": "application/x-www-form-urlencoded"}
    )
    with urllib.request.urlopen(request, timeout=10) as resp:
        return int(resp.status), resp.read().decode()


GOODBYE = "Thank you for calling, goodbye."


def test_a_bot_that_hangs_up_lets_the_carrier_play_its_goodbye_first(hibari_backend: Backend) -> None:
    """The bot says goodbye and ends: the socket closes only after every frame's mark came back."""
    heard: list[str] = []

    async def main() -> Carrier:
        async with EngineRuntime(hibari_backend, workers=1, clock=frozen_clock) as runtime:

            async def bot(call: TwilioCall) -> None:
                transport = TwilioMediaStreamTransport(call)
                worker = PipelineWorker(
                    Pipeline([transport.input(), WarmlineTTSService(runtime=runtime), transport.output()]),
                    params=PipelineParams(audio_in_sample_rate=8000, audio_out_sample_rate=8000),
                    cancel_on_idle_timeout=False,
                )

                async def connected(*_: Any) -> None:
                    await worker.queue_frames([TTSSpeakFrame(GOODBYE), EndFrame()])

                async def words(_: Any, batch: list[str], context_id: str | None) -> None:
                    heard.extend(batch)

                transport.add_event_handler("on_client_connected", connected)
                transport.add_event_handler("on_words_heard", words)
                runner = WorkerRunner(handle_sigint=False)
                await runner.add_workers(worker)
                await runner.run()

            app = Starlette(routes=twilio_routes(bot, TwilioSettings()))
            server = serving(app, ServerSettings(), host="127.0.0.1", port=0)
            async with server as (host, port), connect(f"ws://{host}:{port}/twilio", max_size=None) as ws:
                carrier = Carrier(ws)
                clock = asyncio.create_task(carrier.run(), name="test-carrier")
                try:
                    await carrier.begin()
                    await asyncio.wait_for(ws.wait_closed(), 30)
                finally:
                    clock.cancel()
                    await asyncio.gather(clock, return_exceptions=True)
        return carrier

    carrier = asyncio.run(main())
    sent = [r.message.name for r in carrier.log.received if isinstance(r.message, tp.OutboundMark)]
    assert sent and [name for _, name in carrier.log.echoed] == sent
    assert len(carrier.log.played) == tp.CHUNKS_PER_FRAME * len(sent)
    assert heard == words_of(truth_frames(hibari_backend, GOODBYE))
