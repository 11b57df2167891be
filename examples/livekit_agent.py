"""Switching a LiveKit Agents bot to Warmline: the line you change, and a session that runs it locally.

In a LiveKit agent you already have (``pip install 'warmline[livekit]'``), the change is the TTS::

    from tts_service.livekit.tts import WarmlineTTS

    session = AgentSession(
        stt=deepgram.STT(),
        llm=openai.LLM(model="gpt-4o-mini"),
        tts=WarmlineTTS(voice="heart"),   # was e.g. cartesia.TTS(voice=...)
        vad=silero.VAD.load(),
    )
    await session.start(agent=Agent(instructions="..."), room=ctx.room)

The LLM's tokens are injected into a warm engine as they stream (no sentence buffering), the
room gets 80 ms frames, and LiveKit's transcription follows the engine's word timings. One warm
model serves every stream of the ``WarmlineTTS``; to share it with other code in the process,
pass ``runtime=`` an ``EngineRuntime`` you start and close.

So that the first caller does not wait for the model to load, build the TTS in the worker's
prewarm function (``prewarm`` below): LiveKit runs it in each job process before a job comes,
``WarmlineTTS.prewarm()`` loads the model there and says one warm-up turn, and the job takes the
warm TTS from ``proc.userdata``::

    server = AgentServer(setup_fnc=prewarm)

    @server.rtc_session()
    async def entrypoint(ctx: JobContext) -> None:
        session = AgentSession(stt=..., llm=..., vad=..., tts=ctx.proc.userdata["tts"])
        await session.start(agent=Agent(instructions="..."), room=ctx.room)

    cli.run_app(server)

This script needs no LiveKit server, keys or network: an ``AgentSession`` says an answer
streamed at 30 tokens a second, as an LLM would, into a small audio sink that stands where the
room's output would be and writes a WAV; the words LiveKit recorded are printed at the end. It
calls ``prewarm`` first, as a worker would, before its event loop runs. With ``--interrupt-s``
the answer is interrupted once that much audio has arrived::

    python examples/livekit_agent.py out.wav [--interrupt-s 1.5] [--sample-rate 16000]
"""

from __future__ import annotations

import argparse
import asyncio
import time
import wave
from collections.abc import AsyncIterator

from livekit import rtc
from livekit.agents import Agent, AgentSession, JobExecutorType, JobProcess
from livekit.agents.voice import io
from livekit.agents.voice.transcription import TranscriptSynchronizer

from tts_service.livekit.tts import WarmlineTTS

ANSWER = (
    "Sure, I can help with that. We have a table for two at eight tonight, "
    "and the terrace is open if the weather holds."
)


class WavSink(io.AudioOutput):
    """Where the room's audio output would be: it plays in real time, and what plays goes to a WAV.

    Like a room's audio source it holds the writer while more than ``QUEUE_S`` is queued; a
    ``clear_buffer`` (an interruption) drops what had not played yet, which the caller never hears.
    """

    QUEUE_S = 0.2

    def __init__(self, path: str, *, interrupt_after_s: float | None) -> None:
        super().__init__(label="wav-sink", capabilities=io.AudioOutputCapabilities(pause=False))
        self.path = path
        self.frames: list[rtc.AudioFrame] = []
        self.heard_enough = asyncio.Event()
        self._interrupt_after_s = interrupt_after_s
        self._started = self._play_end = 0.0
        self._playing = False
        self._finishing: asyncio.TimerHandle | None = None

    async def capture_frame(self, frame: rtc.AudioFrame) -> None:
        await super().capture_frame(frame)
        now = asyncio.get_running_loop().time()
        if not self._playing:
            self._playing, self._started, self._play_end = True, now, now
            self.on_playback_started(created_at=time.time())
        self._play_end = max(self._play_end, now) + frame.duration
        self.frames.append(frame)
        if self._interrupt_after_s is not None and self.seconds >= self._interrupt_after_s:
            self.heard_enough.set()
        await asyncio.sleep(max(0.0, self._play_end - self.QUEUE_S - now))

    def flush(self) -> None:
        super().flush()
        if self._playing:
            left_s = max(0.0, self._play_end - asyncio.get_running_loop().time())
            self._finishing = asyncio.get_running_loop().call_later(left_s, self._end, False)

    def clear_buffer(self) -> None:
        if self._finishing is not None:
            self._finishing.cancel()
        self._end(interrupted=True)

    def _end(self, interrupted: bool) -> None:
        self._finishing = None
        if not self._playing:
            return
        played_s = min(asyncio.get_running_loop().time(), self._play_end) - self._started
        if interrupted:
            self._drop_unplayed(played_s)
        self.on_playback_finished(playback_position=played_s, interrupted=interrupted)
        self._playing = False

    def _drop_unplayed(self, played_s: float) -> None:
        kept, total = [], 0.0
        for frame in self.frames:
            if total >= played_s:
                break
            kept.append(frame)
            total += frame.duration
        self.frames = kept

    @property
    def seconds(self) -> float:
        return sum(f.duration for f in self.frames)

    def write(self) -> None:
        with wave.open(self.path, "wb") as out:
            out.setnchannels(1)
            out.setsampwidth(2)
            out.setframerate(self.frames[0].sample_rate if self.frames else 24000)
            out.writeframes(b"".join(bytes(f.data) for f in self.frames))


class Captions(io.TextOutput):
    """Where the room's transcription output would be: LiveKit releases each word as it is heard."""

    def __init__(self) -> None:
        super().__init__(label="captions", next_in_chain=None)
        self.text = ""

    async def capture_text(self, text: str) -> None:
        self.text += text

    def flush(self) -> None:
        pass


async def llm_tokens(text: str, tokens_per_s: float = 30.0) -> AsyncIterator[str]:
    """An answer as an LLM streams it: a word piece at a time."""
    for i, word in enumerate(text.split(" ")):
        await asyncio.sleep(1 / tokens_per_s)
        yield word if i == 0 else f" {word}"


def prewarm(proc: JobProcess, *, sample_rate: int = 24000) -> None:
    """The worker's prewarm function: a TTS whose model is loaded and warm before the first job.

    LiveKit calls it in the job process with no event loop running, so ``prewarm()`` loads the
    model right here (about a second), not in front of the first caller.
    """
    tts = WarmlineTTS(voice="heart", sample_rate=sample_rate)
    tts.prewarm()
    proc.userdata["tts"] = tts


async def main(path: str, interrupt_s: float | None, tts: WarmlineTTS) -> None:
    async with tts:
        session: AgentSession[None] = AgentSession(tts=tts)
        sink = WavSink(path, interrupt_after_s=interrupt_s)
        # as a room's output does: LiveKit's synchronizer releases each word as its audio plays,
        # from the engine's word timings, so an interrupted answer keeps only the words heard
        synced = TranscriptSynchronizer(next_in_chain_audio=sink, next_in_chain_text=Captions())
        session.output.audio = synced.audio_output
        session.output.transcription = synced.text_output
        await session.start(Agent(instructions="You are a friendly restaurant host."))
        try:
            handle = session.say(llm_tokens(ANSWER))
            if interrupt_s is not None:
                waiting = asyncio.create_task(sink.heard_enough.wait(), name="example-heard-enough")
                await asyncio.wait(
                    {waiting, asyncio.ensure_future(handle.wait_for_playout())},
                    return_when=asyncio.FIRST_COMPLETED,
                )
                waiting.cancel()
                if not handle.done():
                    await handle.interrupt()
            await handle.wait_for_playout()
        finally:
            await session.aclose()
        sink.write()
        print(f"wrote {sink.seconds:.2f} s of audio to {path}")
        for message in session.history.messages():
            if message.role == "assistant":
                cut = " (interrupted)" if message.interrupted else ""
                print(f"assistant{cut}: {message.text_content}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", help="the WAV file to write")
    parser.add_argument("--interrupt-s", type=float, default=None, help="interrupt after this much audio")
    parser.add_argument("--sample-rate", type=int, default=24000, choices=(8000, 16000, 24000, 48000))
    args = parser.parse_args()
    # what a LiveKit worker does in each job process: the prewarm function, then the job's loop
    proc = JobProcess(executor_type=JobExecutorType.PROCESS, user_arguments=None, http_proxy=None)
    prewarm(proc, sample_rate=args.sample_rate)
    asyncio.run(main(args.out, args.interrupt_s, proc.userdata["tts"]))
