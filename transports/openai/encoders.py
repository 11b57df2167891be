"""Audio encoders for OpenAI's ``response_format`` s, fed 80 ms frames, yielding bytes as they come.

    encoder = new_encoder("mp3", sample_rate=24000)
    for frame in frames:
        send(encoder.encode(frame_pcm16))      # possibly b"" (the codec is filling a packet)
    send(encoder.finish())                     # the codec's tail and the container's trailer

``pcm`` is raw 16-bit little-endian mono, as OpenAI documents it; ``wav`` is that PCM behind a
RIFF header whose sizes say "unknown" (0xFFFFFFFF), because a streamed body is sent before its
length is known; every compressed format is encoded by FFmpeg through PyAV (``mp3``: LAME in an
MP3 stream; ``opus``: libopus in Ogg, one page per 80 ms so bytes leave with each frame; ``aac``:
AAC-LC in ADTS; ``flac``: native FLAC). Each container flushes after every packet, so the
first bytes follow the first frame instead of waiting for an I/O buffer to fill.

Pure apart from the codec: no I/O, no asyncio. An encoder serves one response.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import Protocol

import av
import numpy as np
import numpy.typing as npt
from av.audio.stream import AudioStream

Pcm16 = npt.NDArray[np.int16]

#: a RIFF or data size that says "until the end of the stream"
_UNKNOWN_SIZE = 0xFFFFFFFF


class AudioEncoder(Protocol):
    """One response's encoder: mono int16 PCM in, encoded bytes out."""

    def encode(self, pcm: Pcm16) -> bytes:
        """The bytes ready after ``pcm`` (may be empty)."""
        ...

    def finish(self) -> bytes:
        """The remaining bytes; the encoder is spent."""
        ...

    def close(self) -> None:
        """Free the encoder without finishing (a response cut short); safe after ``finish``."""
        ...


@dataclass(frozen=True, slots=True)
class Format:
    """One ``response_format``: its media type and how it is made."""

    name: str
    media_type: str
    #: (FFmpeg container, codec) for the compressed formats; None for pcm and wav
    av: tuple[str, str] | None = None


FORMATS: dict[str, Format] = {
    f.name: f
    for f in (
        Format("mp3", "audio/mpeg", ("mp3", "libmp3lame")),
        Format("opus", "audio/ogg", ("ogg", "libopus")),
        Format("aac", "audio/aac", ("adts", "aac")),
        Format("flac", "audio/flac", ("flac", "flac")),
        Format("wav", "audio/wav"),
        Format("pcm", "audio/pcm"),
    )
}


class PcmEncoder:
    """Raw 16-bit little-endian samples."""

    def encode(self, pcm: Pcm16) -> bytes:
        return pcm.astype("<i2", copy=False).tobytes()

    def finish(self) -> bytes:
        return b""

    def close(self) -> None:
        pass


class WavEncoder(PcmEncoder):
    """PCM behind a RIFF/WAVE header written before the first samples (sizes unknown)."""

    def __init__(self, sample_rate: int) -> None:
        self._header: bytes | None = wav_header(sample_rate)

    def encode(self, pcm: Pcm16) -> bytes:
        header, self._header = self._header or b"", None
        return header + super().encode(pcm)

    def finish(self) -> bytes:
        header, self._header = self._header or b"", None
        return header  # an empty response is still a WAV file


def wav_header(sample_rate: int, *, channels: int = 1, bits: int = 16) -> bytes:
    """A 44-byte canonical WAV header whose RIFF and data sizes are 0xFFFFFFFF (streamed)."""
    block = channels * bits // 8
    fmt = struct.pack("<HHIIHH", 1, channels, sample_rate, sample_rate * block, block, bits)
    return (
        b"RIFF"
        + struct.pack("<I", _UNKNOWN_SIZE)
        + b"WAVE"
        + b"fmt "
        + struct.pack("<I", len(fmt))
        + fmt
        + b"data"
        + struct.pack("<I", _UNKNOWN_SIZE)
    )


class _Sink:
    """The write-only file PyAV's muxer writes into; not seekable, so nothing is rewritten later."""

    def __init__(self) -> None:
        self._chunks: list[bytes] = []

    def write(self, data: bytes) -> int:
        self._chunks.append(bytes(data))
        return len(data)

    def take(self) -> bytes:
        data, self._chunks = b"".join(self._chunks), []
        return data


class AvEncoder:
    """A codec in a container, through PyAV; the codec re-frames the 80 ms input as it needs."""

    def __init__(self, container: str, codec: str, sample_rate: int) -> None:
        self._rate = sample_rate
        self._sink = _Sink()
        options = {"flush_packets": "1"}
        if container == "ogg":
            options["page_duration"] = "80000"  # microseconds: one Ogg page per frame
        self._container = av.open(self._sink, mode="w", format=container, options=options)
        stream = self._container.add_stream(codec, rate=sample_rate, layout="mono")
        assert isinstance(stream, AudioStream)
        self._stream = stream
        self._pts = 0
        self._open = True

    def encode(self, pcm: Pcm16) -> bytes:
        frame = av.AudioFrame.from_ndarray(
            np.ascontiguousarray(pcm, dtype=np.int16).reshape(1, -1), format="s16", layout="mono"
        )
        frame.sample_rate = self._rate
        frame.pts = self._pts
        self._pts += frame.samples
        for packet in self._stream.encode(frame):
            self._container.mux(packet)
        return self._sink.take()

    def finish(self) -> bytes:
        for packet in self._stream.encode(None):
            self._container.mux(packet)
        self.close()
        return self._sink.take()

    def close(self) -> None:
        if self._open:
            self._open = False
            self._container.close()


def new_encoder(response_format: str, sample_rate: int) -> AudioEncoder:
    """The encoder for one of ``FORMATS``; KeyError for any other name."""
    fmt = FORMATS[response_format]
    if fmt.av is not None:
        return AvEncoder(*fmt.av, sample_rate)
    return WavEncoder(sample_rate) if fmt.name == "wav" else PcmEncoder()


__all__ = ["FORMATS", "AudioEncoder", "AvEncoder", "Format", "PcmEncoder", "WavEncoder", "new_encoder"]
