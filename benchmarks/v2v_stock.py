"""The baseline of ``v2v_bench.py``: a stock Pipecat phone bot, built the way Pipecat's docs build one.

    app = stock_app(backend, phrases=None, observers=list)   # WebSocket /twilio

Per call: ``FastAPIWebsocketTransport`` with Pipecat's ``TwilioFrameSerializer`` (20 ms mu-law in,
``clear`` on an interruption), Silero VAD with its default parameters inside the user aggregator,
the default user-turn strategies (VAD start; Smart Turn v3 to end the turn, its model ships in the
pipecat wheel), a segmented STT (the agent's recognizer on the whole utterance once the VAD stops,
as Pipecat's local Whisper service works: whisper tiny.en, or pocketsphinx with the demo's
grammar), the same demo responder as the agent, and hibari in SENTENCE mode
(``pipecat_bench.SentenceHibariTTSService``: each sentence synthesized whole).

Only the recognizer and the voice are shared with the agent, so the two bots differ in what the
benchmark compares: turn-taking, when STT runs, and how the TTS streams. Benchmark scaffolding:
never imported by the package.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncGenerator, Callable, Sequence
from typing import Any

import numpy as np
from pipecat.audio.vad.silero import SileroVADAnalyzer
from pipecat.frames.frames import Frame, StartFrame, TranscriptionFrame
from pipecat.observers.base_observer import BaseObserver
from pipecat.pipeline.pipeline import Pipeline
from pipecat.pipeline.worker import PipelineParams, PipelineWorker
from pipecat.processors.aggregators.llm_context import LLMContext
from pipecat.processors.aggregators.llm_response_universal import (
    LLMContextAggregatorPair,
    LLMUserAggregatorParams,
)
from pipecat.serializers.twilio import TwilioFrameSerializer
from pipecat.services.settings import STTSettings
from pipecat.services.stt_service import SegmentedSTTService
from pipecat.transcriptions.language import Language
from pipecat.transports.websocket.fastapi import FastAPIWebsocketParams, FastAPIWebsocketTransport
from pipecat.utils.time import time_now_iso8601
from pipecat.workers.runner import WorkerRunner
from pipecat_bench import SentenceHibariTTSService
from starlette.applications import Starlette
from starlette.routing import WebSocketRoute
from starlette.websockets import WebSocket

from agent.pipeline import SYSTEM_PROMPT
from agent.responder import DemoResponder
from agent.stt.sphinx import (
    DECODER_SAMPLE_RATE,
    NARROWBAND_CMN_INIT,
    WIDEBAND_CMN_INIT,
    build_decoder,
    clean_hypothesis,
)
from agent.stt.tiny_model import SAMPLE_RATE as TINY_WHISPER_RATE
from agent.stt.tiny_model import load_tiny_whisper
from tts_service.dsp import pcm16_to_float
from tts_service.engine.ports import UnitBackend
from tts_service.engine.resample import resample_pcm16

PHONE_RATE = 8000


class SegmentedTinyWhisperSTTService(SegmentedSTTService):
    """whisper tiny.en the way Pipecat runs local STT: the whole segment, after the VAD stop."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("settings", STTSettings(model="whisper-tiny.en", language=Language.EN))
        super().__init__(**kwargs)
        self._whisper = load_tiny_whisper()

    @property
    def wants_wav_segments(self) -> bool:
        return False  # raw 16-bit PCM

    async def run_stt(self, audio: bytes) -> AsyncGenerator[Frame | None, None]:
        samples = pcm16_to_float(resample_pcm16(audio, self.sample_rate, TINY_WHISPER_RATE))
        heard = await asyncio.to_thread(self._whisper.transcribe, samples)
        if heard.text:
            yield TranscriptionFrame(
                heard.text, self._user_id, time_now_iso8601(), Language.EN, finalized=True
            )
        else:
            yield None


class SegmentedPocketsphinxSTTService(SegmentedSTTService):
    """pocketsphinx the way Pipecat runs local STT: the whole segment, decoded after the VAD stop."""

    def __init__(self, *, phrases: Sequence[str] | None = None, **kwargs: Any) -> None:
        kwargs.setdefault("settings", STTSettings(model="pocketsphinx-en-us", language=Language.EN))
        super().__init__(**kwargs)
        self._phrases = phrases
        self._decoder: Any = None

    @property
    def wants_wav_segments(self) -> bool:
        return False  # raw 16-bit PCM

    async def start(self, frame: StartFrame) -> None:
        await super().start(frame)
        cmn = NARROWBAND_CMN_INIT if self.sample_rate <= PHONE_RATE else WIDEBAND_CMN_INIT
        self._decoder = await asyncio.to_thread(build_decoder, self._phrases, cmn_init=cmn)

    async def run_stt(self, audio: bytes) -> AsyncGenerator[Frame | None, None]:
        text = await asyncio.to_thread(self._decode, audio)
        if text:
            yield TranscriptionFrame(text, self._user_id, time_now_iso8601(), Language.EN, finalized=True)
        else:
            yield None

    def _decode(self, audio: bytes) -> str:
        pcm = np.frombuffer(audio, dtype="<i2")
        if self.sample_rate != DECODER_SAMPLE_RATE:
            pcm = resample_pcm16(pcm, self.sample_rate, DECODER_SAMPLE_RATE).astype("<i2")
        self._decoder.start_utt()
        self._decoder.process_raw(pcm.tobytes(), False, True)
        self._decoder.end_utt()
        hyp = self._decoder.hyp()
        return "" if hyp is None else clean_hypothesis(str(hyp.hypstr))


def stock_app(
    backend: UnitBackend,
    *,
    phrases: Sequence[str] | None,
    observers: Callable[[], list[BaseObserver]],
) -> Starlette:
    """A Starlette app with the stock bot on WebSocket ``/twilio`` (``phrases``: pocketsphinx with
    this closed grammar; None: whisper tiny.en, the agent's default)."""

    async def twilio(websocket: WebSocket) -> None:
        await websocket.accept()
        stream_sid = call_sid = ""
        while not stream_sid:  # Twilio sends "connected", then "start" with the stream's ids
            message = json.loads(await websocket.receive_text())
            if message.get("event") == "start":
                stream_sid, call_sid = message["start"]["streamSid"], message["start"]["callSid"]
        serializer = TwilioFrameSerializer(
            stream_sid, call_sid, params=TwilioFrameSerializer.InputParams(auto_hang_up=False)
        )
        transport = FastAPIWebsocketTransport(
            websocket,
            FastAPIWebsocketParams(
                audio_in_enabled=True, audio_out_enabled=True, add_wav_header=False, serializer=serializer
            ),
        )
        stt: SegmentedSTTService = (
            SegmentedPocketsphinxSTTService(phrases=phrases) if phrases else SegmentedTinyWhisperSTTService()
        )
        context = LLMContext(messages=[{"role": "system", "content": SYSTEM_PROMPT}])
        user, assistant = LLMContextAggregatorPair(
            context, user_params=LLMUserAggregatorParams(vad_analyzer=SileroVADAnalyzer())
        )
        pipeline = Pipeline(
            [
                transport.input(),
                stt,
                user,
                DemoResponder(),
                SentenceHibariTTSService(backend),
                transport.output(),
                assistant,
            ]
        )
        worker = PipelineWorker(
            pipeline,
            params=PipelineParams(audio_in_sample_rate=PHONE_RATE, audio_out_sample_rate=PHONE_RATE),
            observers=observers(),
        )

        @transport.event_handler("on_client_disconnected")
        async def gone(*_: Any) -> None:
            await worker.cancel()

        runner = WorkerRunner(handle_sigint=False)
        await runner.add_workers(worker)
        await runner.run()

    return Starlette(routes=[WebSocketRoute("/twilio", twilio)])


__all__ = ["SegmentedPocketsphinxSTTService", "SegmentedTinyWhisperSTTService", "stock_app"]
