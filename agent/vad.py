"""Voice activity detection for the agent: the analyzers a call's ``VADProcessor`` can use.

    vad = silero_vad()        # the default: Pipecat's Silero analyzer (its model ships in the wheel)
    vad = webrtc_vad()        # the light one for 8 kHz phone calls: WebRTC's GMM VAD, no model
    vad = VAD_ANALYZERS[name]()                         # by name, as ``warmline call --vad`` does

The turn timing lives here, in one place, and every analyzer here uses it: ``VAD_START_S`` is how
much speech confirms that the caller started talking (a barge-in's floor), ``VAD_STOP_S`` how much
silence confirms they stopped (the largest part of the voice-to-voice latency), ``VAD_MIN_VOLUME``
the loudness below which nothing counts as speech. The values come from
``benchmarks/v2v_bench.py`` on 8 kHz phone audio; two effects set them:

* Silero's confidence stays high for about 150 ms after speech really ends, so a stop of 0.15 s
  ends the caller's turn after about 300 ms of real silence (pauses between words are shorter);
  Pipecat's default 0.2 s adds a 32 ms window for nothing but safety from Smart Turn, unused here.
* Pipecat's volume is a 400 ms loudness window, smoothed: at its default threshold of 0.6 (about
  -50 LUFS) a speech onset takes 160 ms to count at all, which alone would spend most of a
  250 ms barge-in budget. 0.4 (about -70 LUFS) still gates line hiss; Silero's confidence (0.7)
  does the rest. A start of 0.1 s of such speech then confirms a barge-in about 160 ms in.

An analyzer learns its stream's sample rate from the pipeline's setup; a rate it cannot analyze
fails there, with a ``ValueError`` naming the rates it can. Every Silero analyzer runs on one
ONNX session per process (``tts_service.pipecat.compat.silero_session``, loaded off the loop when the agent
server starts); each keeps its own recurrent state. WebRTC's VAD has no model.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import webrtcvad
from pipecat.audio.vad.vad_analyzer import VADAnalyzer, VADParams, VADState

from tts_service.dsp import pcm16_dbfs
from tts_service.pipecat.compat import shared_silero_analyzer

#: speech that confirms the caller started talking (and so interrupts the bot)
VAD_START_S = 0.1
#: silence that confirms the caller stopped talking (after the analyzer's own hangover)
VAD_STOP_S = 0.15
#: Pipecat's normalized loudness (0: -110 LUFS, 1: -10 LUFS) below which nothing is speech
VAD_MIN_VOLUME = 0.4

#: a window counts as voiceless this far below the caller's speech, or this close to the line's noise
GATE_BELOW_SPEECH_DB = 30.0
GATE_ABOVE_NOISE_DB = 9.0
#: and always below this absolute level (dBFS)
GATE_FLOOR_DBFS = -60.0

#: the sample rates WebRTC's VAD analyzes (16-bit mono PCM)
WEBRTC_SAMPLE_RATES = (8000, 16000, 32000, 48000)
#: one decision per 20 ms: a Twilio media frame, so each decision waits for no more than one packet
WEBRTC_FRAME_MS = 20
#: 0 (keeps the most, noise included) to 3 (drops the most, soft speech included). 2 because phone
#: lines carry hiss, hum and the codec's comfort noise, which the lower modes let through as speech
#: more often, while mode 3 clips the quiet onsets and unvoiced consonants of a caller far from the
#: handset.
WEBRTC_DEFAULT_MODE = 2


class WebRTCVADAnalyzer(VADAnalyzer):
    """WebRTC's VAD behind Pipecat's analyzer: one speech/no-speech decision per 20 ms frame.

    Confidence is 1.0 or 0.0; the base class turns runs of decisions into the caller's turns with
    ``vad_params()``' timing. One instance serves one stream; ``set_sample_rate`` starts it afresh.
    """

    def __init__(
        self,
        *,
        mode: int = WEBRTC_DEFAULT_MODE,
        sample_rate: int | None = None,
        params: VADParams | None = None,
    ) -> None:
        if mode not in range(4):
            raise ValueError(f"WebRTC VAD mode must be 0, 1, 2 or 3, not {mode}")
        if sample_rate is not None:
            _check_webrtc_rate(sample_rate)
        super().__init__(sample_rate=sample_rate, params=params or vad_params())
        self._mode = mode
        self._vad = webrtcvad.Vad(mode)

    @property
    def mode(self) -> int:
        """The aggressiveness, 0 to 3."""
        return self._mode

    def set_sample_rate(self, sample_rate: int) -> None:
        """Adopt the stream's rate (a rate given to the constructor wins, as in the base class).

        Raises ``ValueError`` naming the supported rates when WebRTC's VAD cannot analyze it.
        """
        _check_webrtc_rate(self._init_sample_rate or sample_rate)
        self._vad = webrtcvad.Vad(self._mode)  # a new stream: no state from the previous one
        super().set_sample_rate(sample_rate)

    def num_frames_required(self) -> int:
        """Samples per decision: 20 ms at the stream's rate."""
        return self.sample_rate * WEBRTC_FRAME_MS // 1000

    async def analyze_audio(self, buffer: bytes) -> VADState:
        """The base class's analysis, refused in words while no supported rate is set (the pipeline's
        setup failed on its rate, or never ran) instead of failing on a missing attribute per frame."""
        if not self.sample_rate:
            raise ValueError(f"WebRTC VAD has no sample rate yet; it needs one of {_rates_text()} Hz")
        return await super().analyze_audio(buffer)

    def voice_confidence(self, buffer: bytes) -> float:
        """1.0 when WebRTC's VAD hears speech in this 20 ms frame of int16 PCM, else 0.0."""
        return 1.0 if self._vad.is_speech(buffer, self.sample_rate) else 0.0


class EnergyGatedVADAnalyzer(VADAnalyzer):
    """A VAD whose confidence drops the moment the caller's audio goes quiet.

    Silero stays confident for about 150 ms after speech really ends (its recurrent state fades
    slowly), which every turn end pays for. This wraps any analyzer and reports no voice for a
    window whose level is low: below the caller's recent speech by ``GATE_BELOW_SPEECH_DB``, or
    within ``GATE_ABOVE_NOISE_DB`` of the line's noise floor, or under ``GATE_FLOOR_DBFS``. The
    inner analyzer still scores every window (its state must follow the audio), and onsets are
    its own: a window loud enough passes its confidence through. Speech and noise levels are
    tracked per stream (fast attack, slow release), so a noisy line raises the gate with it.
    """

    def __init__(self, inner: VADAnalyzer, *, params: VADParams | None = None) -> None:
        super().__init__(sample_rate=None, params=params or inner.params)
        self._inner = inner
        self._speech_db = -30.0
        self._noise_db = -90.0

    def set_sample_rate(self, sample_rate: int) -> None:
        self._inner.set_sample_rate(sample_rate)
        super().set_sample_rate(sample_rate)

    def num_frames_required(self) -> int:
        return self._inner.num_frames_required()

    def voice_confidence(self, buffer: bytes) -> float:
        confidence = float(np.asarray(self._inner.voice_confidence(buffer)).reshape(-1)[0])
        level = pcm16_dbfs(buffer)
        # levels: speech follows loud windows up fast and decays slowly; noise follows quiet ones
        self._speech_db = level if level > self._speech_db else self._speech_db - 0.05
        self._noise_db = level if level < self._noise_db else self._noise_db + 0.02
        gate = max(
            GATE_FLOOR_DBFS, self._noise_db + GATE_ABOVE_NOISE_DB, self._speech_db - GATE_BELOW_SPEECH_DB
        )
        return confidence if level >= gate else 0.0


def _rates_text() -> str:
    return ", ".join(str(rate) for rate in WEBRTC_SAMPLE_RATES)


def _check_webrtc_rate(sample_rate: int) -> None:
    if sample_rate not in WEBRTC_SAMPLE_RATES:
        raise ValueError(f"WebRTC VAD needs a sample rate of {_rates_text()} Hz, not {sample_rate} Hz")


def vad_params() -> VADParams:
    """The agent's VAD timing, shared by every analyzer."""
    return VADParams(start_secs=VAD_START_S, stop_secs=VAD_STOP_S, min_volume=VAD_MIN_VOLUME)


def silero_vad() -> VADAnalyzer:
    """Silero VAD: the default, robust to noise; its ONNX model ships in the pipecat wheel and is
    loaded once per process, shared by every call."""
    return shared_silero_analyzer(vad_params())


def webrtc_vad() -> VADAnalyzer:
    """WebRTC VAD: the light option for 8 kHz phone calls (no model, microseconds a frame)."""
    return WebRTCVADAnalyzer(params=vad_params())


#: every analyzer by the name ``warmline call --vad`` takes
VAD_ANALYZERS: dict[str, Callable[[], VADAnalyzer]] = {"silero": silero_vad, "webrtc": webrtc_vad}


__all__ = [
    "VAD_ANALYZERS",
    "VAD_MIN_VOLUME",
    "VAD_START_S",
    "VAD_STOP_S",
    "WEBRTC_DEFAULT_MODE",
    "WEBRTC_FRAME_MS",
    "WEBRTC_SAMPLE_RATES",
    "EnergyGatedVADAnalyzer",
    "WebRTCVADAnalyzer",
    "silero_vad",
    "vad_params",
    "webrtc_vad",
]
