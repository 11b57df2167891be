"""The agent's VADs: WebRTC's analyzer on hibari speech, alone and in a real Pipecat pipeline."""

from __future__ import annotations

import asyncio
import sys

import numpy as np
import pytest
from pipecat.audio.vad.silero import SileroVADAnalyzer
from pipecat.frames.frames import (
    Frame,
    InputAudioRawFrame,
    TranscriptionFrame,
    VADUserStartedSpeakingFrame,
    VADUserStoppedSpeakingFrame,
)
from pipecat.processors.frame_processor import FrameDirection, FrameProcessor

from agent import call_cli
from agent.cli import build_parser, main
from agent.responder import DEMO_PHRASES
from agent.server import AgentSettings, default_parts
from agent.sim import feed_audio, file_vad
from agent.stt.sphinx import PocketsphinxSTTService, normalize_phrase
from agent.vad import (
    VAD_ANALYZERS,
    VAD_START_S,
    VAD_STOP_S,
    WEBRTC_DEFAULT_MODE,
    WebRTCVADAnalyzer,
    webrtc_vad,
)
from tts_service.engine.ports import Backend
from tts_service.errors import InvalidInputError
from tts_service.runtime import EngineRuntime
from tts_service.speech import spoken_pcm

RATES = [8000, 16000]
LEAD_S = 0.5
TAIL_S = 1.0
#: a 20 ms frame this loud (RMS, int16) is speech for the tests' own ruler
SPEECH_RMS = 300.0


def hibari_pcm(backend: Backend, text: str, sample_rate: int) -> np.ndarray:
    """``text`` spoken by hibari as int16 samples, nothing around it."""
    return spoken_pcm(backend, text, sample_rate)


def framed(pcm: np.ndarray, sample_rate: int) -> list[np.ndarray]:
    """Whole 20 ms frames of ``pcm`` (a short tail is dropped)."""
    n = sample_rate // 50
    return [pcm[i : i + n] for i in range(0, len(pcm) - n + 1, n)]


def rms(frame: np.ndarray) -> float:
    return float(np.sqrt(np.mean(frame.astype(np.float64) ** 2)))


def speech_span_s(pcm: np.ndarray, sample_rate: int) -> tuple[float, float]:
    """Where the loud 20 ms frames of ``pcm`` begin and end, in seconds."""
    loud = [i for i, f in enumerate(framed(pcm, sample_rate)) if rms(f) >= SPEECH_RMS]
    return loud[0] * 0.02, (loud[-1] + 1) * 0.02


def analyzer_at(sample_rate: int) -> WebRTCVADAnalyzer:
    vad = WebRTCVADAnalyzer()
    vad.set_sample_rate(sample_rate)
    return vad


@pytest.mark.parametrize("sample_rate", RATES)
def test_silence_is_never_speech(sample_rate: int) -> None:
    """Digital silence: every 20 ms frame gets confidence 0."""
    vad = analyzer_at(sample_rate)
    assert vad.num_frames_required() == sample_rate // 50
    frame = bytes(vad.num_frames_required() * 2)
    assert [vad.voice_confidence(frame) for _ in range(50)] == [0.0] * 50


@pytest.mark.parametrize("sample_rate", RATES)
def test_hibari_speech_frames_get_full_confidence(hibari_backend: Backend, sample_rate: int) -> None:
    """Hibari saying a sentence: (nearly) every loud 20 ms frame is speech, with confidence 1."""
    vad = analyzer_at(sample_rate)
    frames = framed(hibari_pcm(hibari_backend, "Can I book a table for two?", sample_rate), sample_rate)
    loud = [vad.voice_confidence(f.tobytes()) for f in frames if rms(f) >= SPEECH_RMS]
    assert len(loud) >= 25 and set(loud) <= {0.0, 1.0}
    assert loud.count(1.0) >= 0.9 * len(loud), loud


def test_line_hiss_is_not_speech() -> None:
    """Steady hiss at about -40 dBFS on an 8 kHz line is not taken for speech (what mode 2 is for)."""
    vad = analyzer_at(8000)
    hiss = (np.random.default_rng(7).standard_normal(8000 * 2) * 300).astype("<i2")
    confidences = [vad.voice_confidence(f.tobytes()) for f in framed(hiss, 8000)]
    assert WEBRTC_DEFAULT_MODE == 2
    assert sum(confidences) <= 0.1 * len(confidences)


class VADEvents(FrameProcessor):
    """After the VAD: each start/stop with the seconds of audio that had passed it, and transcripts."""

    def __init__(self, sample_rate: int) -> None:
        super().__init__()
        self._sample_rate = sample_rate
        self._samples = 0
        self.events: list[tuple[str, float]] = []
        self.transcripts: list[str] = []

    async def process_frame(self, frame: Frame, direction: FrameDirection) -> None:
        await super().process_frame(frame, direction)
        if isinstance(frame, InputAudioRawFrame):
            self._samples += len(frame.audio) // 2
        elif isinstance(frame, VADUserStartedSpeakingFrame):
            self.events.append(("start", self._samples / self._sample_rate))
        elif isinstance(frame, VADUserStoppedSpeakingFrame):
            self.events.append(("stop", self._samples / self._sample_rate))
        elif isinstance(frame, TranscriptionFrame):
            self.transcripts.append(frame.text)
        await self.push_frame(frame, direction)


def run_vad_pipeline(
    audio: bytes, sample_rate: int, *middle: FrameProcessor, vad: WebRTCVADAnalyzer | None = None
) -> VADEvents:
    """``audio`` in 20 ms frames through VADProcessor(webrtc) -> ``middle`` -> VADEvents."""
    sink = VADEvents(sample_rate)
    analyzer = vad or webrtc_vad()
    asyncio.run(feed_audio([file_vad(analyzer), *middle, sink], audio, sample_rate))
    return sink


def padded(pcm: np.ndarray, sample_rate: int) -> bytes:
    lead = np.zeros(int(LEAD_S * sample_rate), dtype="<i2")
    tail = np.zeros(int(TAIL_S * sample_rate), dtype="<i2")
    return np.concatenate([lead, pcm, tail]).tobytes()


@pytest.mark.parametrize("sample_rate", RATES)
def test_one_sentence_is_one_turn_in_a_vad_processor(hibari_backend: Backend, sample_rate: int) -> None:
    """Silence, a sentence, silence: one start soon after the onset, one stop after the speech ends."""
    pcm = hibari_pcm(hibari_backend, "What time do you open?", sample_rate)
    onset_s, end_s = (LEAD_S + t for t in speech_span_s(pcm, sample_rate))
    sink = run_vad_pipeline(padded(pcm, sample_rate), sample_rate)
    assert [kind for kind, _ in sink.events] == ["start", "stop"], sink.events
    (_, start_s), (_, stop_s) = sink.events
    assert onset_s + VAD_START_S - 0.02 <= start_s <= onset_s + VAD_START_S + 0.2, (onset_s, sink.events)
    assert end_s + VAD_STOP_S - 0.1 <= stop_s <= end_s + VAD_STOP_S + 0.3, (end_s, sink.events)


def test_pocketsphinx_behind_the_webrtc_vad_transcribes_a_phone_question(hibari_backend: Backend) -> None:
    """8 kHz phone audio, webrtc VAD -> demo-grammar STT: the question comes out word for word."""
    question = "What time do you open?"
    audio = padded(hibari_pcm(hibari_backend, question, 8000), 8000)
    sink = run_vad_pipeline(audio, 8000, PocketsphinxSTTService(phrases=DEMO_PHRASES))
    assert sink.transcripts == [normalize_phrase(question)], sink.events


@pytest.mark.parametrize("where", ["constructor", "set_sample_rate"])
def test_an_unsupported_rate_fails_clearly_when_it_becomes_known(where: str) -> None:
    """24 kHz: a ValueError that names the rates WebRTC's VAD takes, as soon as the rate is known."""
    with pytest.raises(ValueError, match=r"8000, 16000, 32000, 48000 Hz, not 24000 Hz"):
        if where == "constructor":
            WebRTCVADAnalyzer(sample_rate=24000)
        else:
            WebRTCVADAnalyzer().set_sample_rate(24000)


def test_audio_before_a_supported_rate_is_refused_in_words() -> None:
    """After a failed (or missing) set_sample_rate, analysing audio says why, not AttributeError."""
    vad = WebRTCVADAnalyzer()
    with pytest.raises(ValueError):
        vad.set_sample_rate(24000)
    with pytest.raises(ValueError, match=r"no sample rate yet; it needs one of 8000, 16000, 32000, 48000"):
        asyncio.run(vad.analyze_audio(bytes(960)))


def test_the_rate_given_to_the_constructor_wins() -> None:
    """A 16 kHz analyzer on a 24 kHz pipeline keeps 16 kHz, as Pipecat's base class does."""
    vad = WebRTCVADAnalyzer(sample_rate=16000)
    vad.set_sample_rate(24000)
    assert vad.sample_rate == 16000 and vad.num_frames_required() == 320


def test_a_mode_outside_0_to_3_is_refused() -> None:
    """Aggressiveness is 0 to 3; 4 is a ValueError, not a C-level failure on the first frame."""
    with pytest.raises(ValueError, match="0, 1, 2 or 3"):
        WebRTCVADAnalyzer(mode=4)


@pytest.mark.parametrize(("name", "kind"), [("silero", SileroVADAnalyzer), ("webrtc", WebRTCVADAnalyzer)])
def test_default_parts_pick_the_vad_by_name(hibari_backend: Backend, name: str, kind: type) -> None:
    """``AgentSettings(vad=name)`` gives every call that analyzer, with the agent's turn timing."""
    vad = default_parts(EngineRuntime(hibari_backend), AgentSettings(vad=name)).vad()
    assert isinstance(vad, kind)
    assert (vad.params.start_secs, vad.params.stop_secs) == (VAD_START_S, VAD_STOP_S)


def test_default_parts_refuse_an_unknown_vad(hibari_backend: Backend) -> None:
    """An unknown VAD name is an InvalidInputError that lists the known ones."""
    with pytest.raises(InvalidInputError, match="silero, webrtc"):
        default_parts(EngineRuntime(hibari_backend), AgentSettings(vad="foo"))


def test_the_cli_knows_the_same_vads_as_the_agent() -> None:
    """``--vad``'s choices (spelled out so the parser needs no Pipecat) are VAD_ANALYZERS' names."""
    assert set(call_cli.VAD_NAMES) == set(VAD_ANALYZERS)


def test_warmline_call_parses_vad(monkeypatch: pytest.MonkeyPatch) -> None:
    """``--vad webrtc`` parses; without it the default is $WARMLINE_VAD, else silero."""
    monkeypatch.delenv("WARMLINE_VAD", raising=False)
    assert build_parser().parse_args(["call"]).vad == "silero"
    assert build_parser().parse_args(["call", "--vad", "webrtc"]).vad == "webrtc"
    monkeypatch.setenv("WARMLINE_VAD", "webrtc")
    assert build_parser().parse_args(["call"]).vad == "webrtc"


def test_warmline_call_rejects_an_unknown_vad(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--vad foo`` is a usage error (exit 2); so is $WARMLINE_VAD=foo, in one line before loading."""
    with pytest.raises(SystemExit) as exit_info:
        main(["call", "--vad", "foo"])
    assert exit_info.value.code == 2
    assert "invalid choice: 'foo'" in capsys.readouterr().err
    monkeypatch.setenv("WARMLINE_VAD", "foo")
    assert main(["call", "--port", "0"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "unknown VAD 'foo'" in err[0]


def test_warmline_call_hands_the_vad_to_the_server(monkeypatch: pytest.MonkeyPatch) -> None:
    """``warmline call --vad webrtc`` serves with ``AgentSettings(vad="webrtc")``."""
    served: list[AgentSettings] = []

    async def fake_serve(
        settings: AgentSettings, *, backend: str, workers: int, drain_s: float, **options: object
    ) -> None:
        del backend, workers, drain_s
        served.append(settings)

    monkeypatch.setattr("agent.server.serve_agent", fake_serve)
    monkeypatch.setattr(call_cli, "_quiet_pipecat", lambda *, verbose: None)
    assert main(["call", "--port", "0", "--vad", "webrtc"]) == 0
    assert [s.vad for s in served] == ["webrtc"]


def test_the_call_log_drops_pipecats_stop_secs_warning_only(capsys: pytest.CaptureFixture[str]) -> None:
    """``warmline call`` keeps Pipecat's warnings, except the one about the agent's deliberate VAD stop."""
    from loguru import logger

    from agent.call_cli import _quiet_pipecat

    _quiet_pipecat(verbose=False)  # installs a sink on this test's captured stderr
    try:
        strategy = logger.patch(
            lambda r: r.update(name="pipecat.turns.user_stop.speech_timeout_user_turn_stop_strategy")
        )
        strategy.warning("VAD stop_secs (0.15s) differs from the default")
        strategy.warning("something else went wrong")
        logger.patch(lambda r: r.update(name="pipecat.other")).warning("VAD stop_secs is odd here")
        logger.info("not shown at all")
        err = capsys.readouterr().err
        assert "differs from the default" not in err
        assert "something else went wrong" in err and "VAD stop_secs is odd here" in err
        assert "not shown at all" not in err
    finally:  # the next tests log to whatever stderr is then
        logger.remove()
        logger.add(lambda message: sys.stderr.write(message))
