"""A Pipecat transport for one Twilio media stream, that knows which words the caller heard.

    async def bot(call: TwilioCall) -> None:            # given to twilio_server.twilio_routes
        transport = TwilioMediaStreamTransport(call)     # call.custom_parameters: the TwiML's
        worker = PipelineWorker(
            Pipeline([transport.input(), stt, llm, tts, transport.output(), assistant_aggregator]),
            params=PipelineParams(audio_in_sample_rate=8000, audio_out_sample_rate=8000),
        )

        @transport.event_handler("on_client_disconnected")
        async def gone(transport, reason):
            await worker.cancel()

        runner = WorkerRunner(handle_sigint=False)
        await runner.add_workers(worker)
        await runner.run()

Why not Pipecat's ``TwilioFrameSerializer`` on ``FastAPIWebsocketTransport``: a serializer turns
one frame into one message, so it cannot send a frame as four 20 ms payloads plus a mark, it
never sees the marks coming back, and that output paces on its own wall clock at twice real
time. So on a phone call Pipecat cannot know what was heard: words are released to the context
when they were *sent*, and the carrier may still hold a second of them when the caller barges in.

Heard words. The output writes each 80 ms frame (``audio_out_10ms_chunks=8`` at 8 kHz, the
engine's frame) as four media messages and the mark ``f<seq>``. Frames that Pipecat would time
by their pts (the TTS service's word frames, the end of the LLM answer) are queued in order with
the audio instead, and everything the output would push downstream after frame ``seq``
(``TTSTextFrame`` s, ``LLMFullResponseEndFrame``, ``TTSStoppedFrame``...) waits in a
``marks.MarkLedger`` until the mark ``f<seq>`` comes back: the assistant context downstream
receives a word only once the caller has heard the frame its audio starts in.
``on_words_heard(transport, words, context_id)`` reports each batch as it is released.

Barge-in (``InterruptionFrame``). Frames not yet sent are dropped (``TwilioCall.interrupt``);
``clear`` is sent only when the carrier holds our audio (a sent frame whose mark has not come
back), not on every utterance of a caller talking into silence. The ledger then forgets the
unconfirmed frames: their words never reach the context, and the marks Twilio echoes for the
audio it drops are ignored.

Pause (``BotOutputPauseFrame``, a barge-in not yet confirmed). The carrier is cleared at once,
as for a barge-in, but the frames it dropped are kept (``replay.Replay``) and the output stops
writing, so Pipecat keeps the rest of the answer queued; the words behind the cleared frames
wait with them. ``BotOutputResumeFrame`` sends the cleared frames again and then the rest: the
caller hears the answer go on from the first frame they had not heard. An ``InterruptionFrame``
during the pause drops all of it, exactly like a barge-in.

Duck (``BotOutputDuckFrame``, a backchannel so far). A paused answer goes on exactly as after a
resume, and every payload sent from then on, the cleared frames' included, is ``gain_db``
quieter (``g711.gain_table``: one ``bytes.translate`` per payload). The replay keeps each frame's
own level, so a pause of a ducked answer followed by a resume sends it again at full level.
``BotOutputResumeFrame`` brings the level back for the next payload sent; what the carrier holds
already (its lead, a few frames) plays out ducked.

The stream's end (stop, hang-up, media timeout, protocol error) fires ``on_client_disconnected``
with the ``twilio_call.EndReason``; the bot cancels its worker there. When the bot ends the call
(``EndFrame``) the output waits, bounded, for the carrier to play what it holds, so a goodbye is
heard before the socket closes. This module never runs model compute, never sends a partial
frame, and never lets a word through before its mark (unless the carrier stops echoing marks
altogether: see ``marks.MarkLedger.max_outstanding``).
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
from pipecat.audio.dtmf.types import KeypadEntry
from pipecat.audio.utils import create_stream_resampler
from pipecat.frames.frames import (
    CancelFrame,
    EndFrame,
    Frame,
    InputAudioRawFrame,
    InputDTMFFrame,
    InterruptionFrame,
    OutputAudioRawFrame,
    OutputTransportMessageFrame,
    OutputTransportMessageUrgentFrame,
    StartFrame,
    SystemFrame,
    TTSStoppedFrame,
    TTSTextFrame,
)
from pipecat.processors.frame_processor import FrameDirection
from pipecat.transports.base_input import BaseInputTransport
from pipecat.transports.base_transport import BaseTransport, TransportParams

from transports.twilio import protocol as tp
from transports.twilio.call import EndReason, TwilioCall
from transports.twilio.marks import MarkLedger
from transports.twilio.replay import Replay
from tts_service import g711
from tts_service.engine.types import FRAME_S, frame_samples
from tts_service.pipecat.compat import AudioOrderedOutputTransport
from tts_service.pipecat.frames import BotOutputDuckFrame, BotOutputPauseFrame, BotOutputResumeFrame

log = logging.getLogger("warmline.twilio")

#: samples of one 80 ms engine frame at Twilio's rate
FRAME_SAMPLES = frame_samples(tp.SAMPLE_RATE)
#: how much longer than its audio the end of a call waits for the carrier's last marks
DRAIN_SLACK_S = 1.0


def twilio_params(**overrides: Any) -> TransportParams:
    """Transport parameters for a Twilio call: 8 kHz in and out, one 80 ms frame per write."""
    values: dict[str, Any] = {
        "audio_in_enabled": True,
        "audio_in_sample_rate": tp.SAMPLE_RATE,
        "audio_out_enabled": True,
        "audio_out_sample_rate": tp.SAMPLE_RATE,
        "audio_out_10ms_chunks": 8,
        # the bot waits for the carrier's marks at the end instead of padding with silence
        "audio_out_end_silence_secs": 0,
    }
    values.update(overrides)
    return TransportParams(**values)


@dataclass(frozen=True, slots=True)
class TraceEntry:
    """One thing the output did, for benchmarks and logs: ``kind`` with a frame ``seq``."""

    time_s: float
    kind: str
    seq: int = -1


class TwilioInputTransport(BaseInputTransport):
    """The caller's audio (8 kHz mu-law, resampled if the pipeline wants another rate) and DTMF."""

    def __init__(self, transport: TwilioMediaStreamTransport, params: TransportParams, **kwargs: Any) -> None:
        super().__init__(params, **kwargs)
        self._transport = transport
        self._resampler = create_stream_resampler()
        self._ready = False

    async def start(self, frame: StartFrame) -> None:
        await super().start(frame)
        await self.set_transport_ready(frame)
        self._ready = True
        await self._transport._call_event_handler("on_client_connected", self._transport.call)

    async def stop(self, frame: EndFrame) -> None:
        self._ready = False
        await super().stop(frame)

    async def cancel(self, frame: CancelFrame) -> None:
        self._ready = False
        await super().cancel(frame)

    async def push_caller_audio(self, pcm: npt.NDArray[np.int16]) -> None:
        if not self._ready:
            return
        audio = pcm.astype("<i2", copy=False).tobytes()
        if self.sample_rate != tp.SAMPLE_RATE:
            audio = await self._resampler.resample(audio, tp.SAMPLE_RATE, self.sample_rate)
        await self.push_audio_frame(
            InputAudioRawFrame(audio=audio, sample_rate=self.sample_rate, num_channels=1)
        )

    async def push_dtmf(self, digit: str) -> None:
        if self._ready:
            await self.push_frame(InputDTMFFrame(button=KeypadEntry(digit)))


class TwilioOutputTransport(AudioOrderedOutputTransport):
    """80 ms frames out as media + mark, paced; clear on barge-in; words released by marks."""

    def __init__(self, transport: TwilioMediaStreamTransport, params: TransportParams, **kwargs: Any) -> None:
        super().__init__(params, **kwargs)
        self._transport = transport
        self._call = transport.call
        self._ledger: MarkLedger[Frame] = MarkLedger()
        #: what the output did, with the call's clock (bounded)
        self.trace: deque[TraceEntry] = deque(maxlen=20_000)
        #: every word released as heard, in order
        self.heard_words: list[str] = []
        #: frames let go because the carrier stopped echoing marks, pushed with the next release
        self._overflow: list[Frame] = []
        #: set when a mark comes back or the stream ends (``stop`` waits on it)
        self._progress = asyncio.Event()
        #: frames sent and not confirmed, and those a pause cleared (``replay``)
        self._replay: Replay[Frame] = Replay()
        #: cleared while the bot is paused; audio waits for it to be set again
        self._resumed = asyncio.Event()
        self._resumed.set()
        #: sends the frames a pause cleared, again, before any new audio
        self._replaying: asyncio.Task[None] | None = None
        #: bumped by every interruption: audio that waited across one is not sent
        self._interruptions = 0
        #: the translation that ducks each payload sent (None: full level)
        self._duck: bytes | None = None

    @property
    def ledger(self) -> MarkLedger[Frame]:
        return self._ledger

    def _note(self, kind: str, seq: int = -1) -> None:
        self.trace.append(TraceEntry(self._call.clock(), kind, seq))

    async def start(self, frame: StartFrame) -> None:
        await super().start(frame)
        if self.sample_rate != tp.SAMPLE_RATE:
            log.warning(
                "%s: output at %d Hz; Twilio plays %d Hz (set audio_out_sample_rate, or use twilio_params)",
                self._call.name,
                self.sample_rate,
                tp.SAMPLE_RATE,
            )
        await self.set_transport_ready(frame)

    # -- audio out ----------------------------------------------------------------------------

    async def write_audio_frame(self, frame: OutputAudioRawFrame) -> bool:
        """Send the chunk as whole 80 ms frames (silence pads a short tail to the frame edge).

        While the bot is paused this waits (so Pipecat keeps the rest queued); a frame the pause
        dropped in its slot is sent after the resume, behind the frames the pause cleared.
        """
        pcm = np.frombuffer(frame.audio, dtype="<i2")
        if frame.num_channels != 1:
            pcm = pcm[:: frame.num_channels]
        if frame.sample_rate != tp.SAMPLE_RATE:
            log.warning("%s: dropping %d Hz audio: Twilio takes 8 kHz", self._call.name, frame.sample_rate)
            return False
        if pcm.size % FRAME_SAMPLES:
            pcm = np.concatenate([pcm, np.zeros(FRAME_SAMPLES - pcm.size % FRAME_SAMPLES, np.int16)])
        interruptions = self._interruptions
        for i in range(0, pcm.size, FRAME_SAMPLES):
            codes = g711.encode(pcm[i : i + FRAME_SAMPLES].astype(np.int16)).tobytes()
            if not await self._send_when_not_paused(codes, frame.interruptible, interruptions):
                self._note("dropped")
                return False
        return True

    async def _send_when_not_paused(self, codes: bytes, interruptible: bool, interruptions: int) -> bool:
        while True:
            await self._resumed.wait()
            if self._replaying is not None:
                await asyncio.wait((self._replaying,))
            if interruptible and interruptions != self._interruptions:
                return False  # the answer this audio belongs to was interrupted while it waited
            epoch = self._call.epoch if interruptible else None
            seq = await self._call.send_frame(self._level(codes), epoch=epoch)
            if seq is not None:
                self._replay.sent(seq, codes)
                self._note("frame_sent", seq)
                return True
            if not self._replay.paused:
                return False  # an interruption (or the end of the call) dropped it
            # else: the pause dropped it in its slot; it goes out once the bot resumes

    def _level(self, codes: bytes) -> bytes:
        return codes if self._duck is None else codes.translate(self._duck)

    # -- marks --------------------------------------------------------------------------------

    def mark_sent(self, seq: int) -> None:
        self._overflow.extend(self._ledger.sent(seq))  # not empty only if marks stopped coming back

    async def mark_returned(self, seq: int) -> None:
        self._note("mark_returned", seq)
        self._replay.played_up_to(seq)
        await self._release(self._ledger.returned(seq))
        self._progress.set()

    async def _release(self, frames: list[Frame]) -> None:
        overflow, self._overflow = self._overflow, []
        words: list[str] = []
        context_id: str | None = None
        for frame in [*overflow, *frames]:
            if isinstance(frame, TTSTextFrame):
                words.append(frame.text)
                context_id = frame.context_id
            await super().push_frame(frame, FrameDirection.DOWNSTREAM)
        if words:
            self.heard_words.extend(words)
            await self._transport._call_event_handler("on_words_heard", words, context_id)

    # -- frames -------------------------------------------------------------------------------

    async def process_frame(self, frame: Frame, direction: FrameDirection) -> None:
        if isinstance(frame, InterruptionFrame):
            await self._barge_in()
        elif isinstance(frame, BotOutputPauseFrame):
            await self._pause()
        elif isinstance(frame, BotOutputResumeFrame):
            self._duck = None
            await self._resume()
        elif isinstance(frame, BotOutputDuckFrame):
            self._note("duck")
            self._duck = g711.gain_table(frame.gain_db)
            await self._resume()
        await super().process_frame(frame, direction)

    async def _barge_in(self) -> None:
        self._interruptions += 1
        self._duck = None
        playing = self._ledger.playing
        self._note("interrupt")
        # A pause that becomes an interruption: the cleared frames are never sent again.
        held = self._replay.drop() if self._replay.paused else []
        self._resumed.set()
        await self._call.interrupt(clear=playing)
        dropped = held
        if playing:
            self._note("clear")
            dropped = [*held, *self._ledger.clear()]
        # Uninterruptible frames were never going to be cut: let them through, in order.
        await self._release([f for f in dropped if not f.interruptible])

    async def _pause(self) -> None:
        """The caller speaks over the bot: silent within one 20 ms payload, the rest kept."""
        if self._replay.paused:
            return
        self._resumed.clear()
        playing = self._ledger.playing
        self._note("pause")
        await self._call.interrupt(clear=playing)  # also drops a frame waiting for its slot
        self._replay.pause(self._ledger.clear_frames() if playing else [])
        if playing:
            self._note("clear")

    async def _resume(self) -> None:
        """Not an interruption: the cleared frames go out again, then the rest, in order."""
        if not self._replay.paused:
            return
        self._note("resume")
        cleared = self._replay.take()
        if cleared:
            self._replaying = self.create_task(self._send_again(cleared), f"{self._call.name}-replay")
        self._resumed.set()

    async def _send_again(self, cleared: list[tuple[bytes, list[Frame]]]) -> None:
        try:
            for codes, items in cleared:
                seq = await self._call.send_frame(self._level(codes), epoch=self._call.epoch)
                if seq is None:  # interrupted meanwhile: these items follow audio never heard
                    return
                self._replay.sent(seq, codes)
                self._note("frame_resent", seq)
                for item in items:
                    if not self._ledger.hold(item):
                        await super().push_frame(item, FrameDirection.DOWNSTREAM)
        finally:
            self._replaying = None

    async def push_frame(self, frame: Frame, direction: FrameDirection = FrameDirection.DOWNSTREAM) -> None:
        """Hold what follows unconfirmed audio until its mark returns (system frames never wait)."""
        if isinstance(frame, TTSStoppedFrame):
            self._call.stream_break()
        if direction is FrameDirection.DOWNSTREAM and not isinstance(
            frame, SystemFrame | EndFrame | OutputAudioRawFrame
        ):
            if self._replay.paused and self._replay.stash(frame):
                return  # follows audio the pause cleared: released once that audio is heard
            if self._ledger.hold(frame):
                return
        await super().push_frame(frame, direction)

    async def send_message(
        self, frame: OutputTransportMessageFrame | OutputTransportMessageUrgentFrame
    ) -> None:
        log.debug("%s: Twilio streams carry no app messages; dropped %s", self._call.name, frame)

    async def stop(self, frame: EndFrame) -> None:
        """Send what is queued, then let the carrier play it (a goodbye is heard, its words recorded)."""
        await self._resume()  # a goodbye is not held by a pause that nobody will resolve
        await super().stop(frame)
        budget_s = self._ledger.outstanding * FRAME_S + DRAIN_SLACK_S
        try:
            async with asyncio.timeout(budget_s):
                while self._ledger.playing and not self._call.ended.is_set():
                    self._progress.clear()
                    await self._progress.wait()
        except TimeoutError:
            log.info(
                "%s: %d frames unconfirmed at the end of the call", self._call.name, self._ledger.outstanding
            )

    async def cancel(self, frame: CancelFrame) -> None:
        """The call is being torn down: nothing paused is sent again."""
        self._replay.drop()
        self._resumed.set()
        if self._replaying is not None:
            await self.cancel_task(self._replaying)
        await super().cancel(frame)

    def stream_ended(self) -> None:
        self._progress.set()


class TwilioMediaStreamTransport(BaseTransport):
    """Pipecat's view of one ``TwilioCall``: ``input()`` and ``output()`` processors.

    Events: ``on_client_connected(transport, call)`` when the pipeline starts,
    ``on_client_disconnected(transport, reason)`` when the stream ends, and
    ``on_words_heard(transport, words, context_id)`` as marks confirm words played.
    """

    def __init__(
        self,
        call: TwilioCall,
        params: TransportParams | None = None,
        *,
        input_name: str | None = None,
        output_name: str | None = None,
    ) -> None:
        super().__init__(input_name=input_name, output_name=output_name)
        self.call = call
        self._params = params or twilio_params()
        self._input = TwilioInputTransport(self, self._params, name=self._input_name)
        self._output = TwilioOutputTransport(self, self._params, name=self._output_name)
        for event in ("on_client_connected", "on_client_disconnected", "on_words_heard"):
            self._register_event_handler(event)
        call.listener = self

    def input(self) -> TwilioInputTransport:
        return self._input

    def output(self) -> TwilioOutputTransport:
        return self._output

    @property
    def custom_parameters(self) -> dict[str, str]:
        """The ``<Parameter>`` values of the TwiML that opened the stream."""
        return self.call.custom_parameters

    # -- CallListener -------------------------------------------------------------------------

    async def on_audio(self, pcm: npt.NDArray[np.int16]) -> None:
        await self._input.push_caller_audio(pcm)

    async def on_dtmf(self, digit: str) -> None:
        await self._input.push_dtmf(digit)

    def on_mark_sent(self, seq: int) -> None:
        self._output.mark_sent(seq)

    async def on_mark(self, seq: int) -> None:
        await self._output.mark_returned(seq)

    async def on_end(self, reason: EndReason) -> None:
        self._output.stream_ended()
        await self._call_event_handler("on_client_disconnected", reason)


__all__ = [
    "TraceEntry",
    "TwilioInputTransport",
    "TwilioMediaStreamTransport",
    "TwilioOutputTransport",
    "twilio_params",
]
