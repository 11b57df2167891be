"""The client's translations of protocol v1: server messages into the engine's values, a session's
settings and verbs into commands. Pure functions, no state: which turn a message belongs to is
``wire_segments``' business, and the message formats themselves are ``tts_service.wire``'s.

* ``word_mark``: a ``word`` event (ms from the server turn's first sample) as a ``WordMark`` at
  sample positions of the local turn;
* ``speech_frame``: one binary audio message as a ``SpeechFrame`` of the local turn, carrying the
  word marks that came before it (each start kept inside the frame);
* ``configured``: the settings a ``configured`` event confirms;
* ``config_command``: the ``config`` that opens every connection (streaming, word timestamps);
* ``coalesce``: consecutive injects as one command.

Sans-I/O and synchronous: no sockets, no asyncio, no clock.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import numpy.typing as npt

from tts_service import wire as wp
from tts_service.engine.config import SessionConfig
from tts_service.engine.types import SampleFormat, SpeechFrame, WordMark


def word_mark(event: dict[str, object], *, base_samples: int, sample_rate: int) -> WordMark:
    """A ``word`` event as a mark ``base_samples`` into the local turn; ``wire.ProtocolError``
    for one without its times."""
    start_ms, end_ms = event.get("start_ms"), event.get("end_ms")
    if not isinstance(start_ms, int | float) or not isinstance(end_ms, int | float):
        raise wp.ProtocolError("bad_json", "a word event needs start_ms and end_ms")
    start = base_samples + round(float(start_ms) * sample_rate / 1000)
    end = base_samples + round(float(end_ms) * sample_rate / 1000)
    return WordMark(str(event.get("word", "")), start, max(start, end))


def speech_frame(
    samples: npt.NDArray[np.int16],
    words: list[WordMark],
    *,
    turn_id: int,
    index: int,
    offset: int,
    sample_rate: int,
) -> SpeechFrame:
    """One server frame's ``samples``, ``offset`` samples into local turn ``turn_id``, with the
    word marks received before it."""
    end = offset + len(samples)
    # ms in the word events are rounded to 0.1: keep each start inside the frame it came with
    marks = tuple(WordMark(w.word, min(max(w.start_sample, offset), end - 1), w.end_sample) for w in words)
    return SpeechFrame(
        turn_id=turn_id,
        index=index,
        sample_offset=offset,
        sample_rate=sample_rate,
        sample_format=SampleFormat.PCM16,
        samples=np.asarray(samples, dtype=np.int16),
        words=marks,
    )


def configured(config: SessionConfig, event: dict[str, object]) -> SessionConfig:
    """``config`` with what a ``configured`` event confirms (a field it lacks stays as it is)."""
    voice, speed, rate = event.get("voice"), event.get("speed"), event.get("sample_rate")
    return replace(
        config,
        voice=voice if isinstance(voice, str) else config.voice,
        speed=float(speed) if isinstance(speed, int | float) else config.speed,
        sample_rate=rate if isinstance(rate, int) else config.sample_rate,
    )


def config_command(config: SessionConfig) -> wp.ConfigureCommand:
    """The ``config`` a new connection begins with: ``config``'s settings, PCM16, word
    timestamps, and the verbs mapped one to one (streaming)."""
    return wp.ConfigureCommand(
        voice=config.voice,
        sample_rate=config.sample_rate,
        encoding=wp.Encoding.PCM16,
        speed=config.speed,
        word_timestamps=True,
        streaming=True,
    )


def coalesce(commands: list[wp.Command]) -> list[wp.Command]:
    """Consecutive injects as one (an LLM's tokens arrive faster than a frame): fewer messages,
    the same text, well under the server's command rate."""
    out: list[wp.Command] = []
    for command in commands:
        last = out[-1] if out else None
        if isinstance(command, wp.InjectCommand) and isinstance(last, wp.InjectCommand):
            out[-1] = wp.InjectCommand(last.text + command.text)
        else:
            out.append(command)
    return out


__all__ = ["coalesce", "config_command", "configured", "speech_frame", "word_mark"]
