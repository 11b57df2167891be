"""The contract of ``tts_service.pipecat.compat``: Pipecat's internals it relies on are still there.

Each test names the internal it checks; a Pipecat release that changes one fails here, loudly,
before it changes how a call behaves.
"""

from __future__ import annotations

import asyncio
import logging

import numpy as np
import pytest
from pipecat.audio.turn.smart_turn.local_smart_turn_v3 import LocalSmartTurnAnalyzerV3
from pipecat.audio.vad.silero import SileroVADAnalyzer
from pipecat.metrics.metrics import TurnMetricsData
from pipecat.transports.base_transport import TransportParams
from pipecat.transports.smallwebrtc.connection import SmallWebRTCConnection

from agent.vad import vad_params
from transports.webrtc.pausable_output import PausableWebRTCOutput
from tts_service.pipecat import compat
from tts_service.tested_version import TestedVersion


def test_the_installed_pipecat_is_the_tested_release_line() -> None:
    """pyproject pins the release line the compat module was written against."""
    assert compat.TESTED_PIPECAT.check(), compat.TESTED_PIPECAT.installed


def test_a_shared_silero_analyzer_has_exactly_the_attributes_pipecats_constructor_sets() -> None:
    """``SileroVADAnalyzer.__init__`` sets the base analyzer's state, ``_model`` and two reset counters."""
    own = SileroVADAnalyzer(params=vad_params())
    shared = compat.shared_silero_analyzer(vad_params())
    assert sorted(vars(shared)) == sorted(vars(own))
    assert type(shared._model).__mro__[1] is type(own._model)


def test_shared_silero_analyzers_score_like_pipecats_own_on_one_session() -> None:
    """Same audio, same confidences, window after window; every analyzer runs on one ONNX session."""
    own = SileroVADAnalyzer(params=vad_params())
    a, b = compat.shared_silero_analyzer(vad_params()), compat.shared_silero_analyzer(vad_params())
    assert a._model.session is b._model.session is compat.silero_session()
    rng = np.random.default_rng(7)
    t = np.arange(256 * 40) / 8000
    audio = (8000 * np.sin(2 * np.pi * 220 * t) * (t > 0.3) + rng.normal(0, 300, t.size)).astype("<i2")
    for analyzer in (own, a, b):
        analyzer.set_sample_rate(8000)
    for i in range(0, audio.size, 256):
        window = audio[i : i + 256].tobytes()
        expected = float(np.asarray(own.voice_confidence(window)).item())
        assert float(np.asarray(a.voice_confidence(window)).item()) == expected
        assert float(np.asarray(b.voice_confidence(window)).item()) == expected


def test_another_release_line_is_warned_about_once(caplog: pytest.LogCaptureFixture) -> None:
    """A distribution off its tested line: False, and one warning naming the contract test."""
    other = TestedVersion("pipecat-ai", "0.9", contract_test="tests/test_pipecat_compat.py")
    missing = TestedVersion("no-such-distribution-here", "1.0", contract_test="tests/x.py")
    with caplog.at_level(logging.WARNING, logger="warmline.compat"):
        assert not other.check() and not other.check()
        assert missing.installed is None and not missing.check()
    assert [r.getMessage().split(":")[0] for r in caplog.records] == [
        f"pipecat-ai {other.installed}",
        "no-such-distribution-here (not installed)",
    ]
    assert "tests/test_pipecat_compat.py" in caplog.records[0].getMessage()


def test_a_shared_smart_turn_analyzer_has_pipecats_attributes_and_scores_like_its_own() -> None:
    """``LocalSmartTurnAnalyzerV3.__init__`` sets the base analyzer's state, ``_log_data`` and
    ``_session``; on the same audio the shared one gives the same probability, on one session."""
    own = LocalSmartTurnAnalyzerV3()
    shared = compat.shared_smart_turn_analyzer()
    assert sorted(vars(shared)) == sorted(vars(own))
    assert shared._session is compat.shared_smart_turn_analyzer()._session is compat.smart_turn_session()
    rng = np.random.default_rng(3)
    t = np.arange(16000) / 16000
    speech = 6000 * np.sin(2 * np.pi * 180 * t) * (1 + np.sin(2 * np.pi * 3 * t)) + rng.normal(0, 200, t.size)
    frames = [speech.astype("<i2")[i : i + 320].tobytes() for i in range(0, t.size, 320)]

    async def score(analyzer: LocalSmartTurnAnalyzerV3) -> float:
        analyzer.set_sample_rate(16000)
        for frame in frames:
            analyzer.append_audio(frame, True)
        analyzer.append_audio(bytes(640), False)
        _, metrics = await analyzer.analyze_end_of_turn()
        assert isinstance(metrics, TurnMetricsData)
        return float(metrics.probability)

    assert asyncio.run(score(shared)) == pytest.approx(asyncio.run(score(own)), abs=1e-6)


def test_smallwebrtc_transport_builds_its_output_from_the_given_class() -> None:
    """``SmallWebRTCTransport`` keeps ``_client``, ``_params`` and ``_output_name`` for the output it
    builds lazily; the compat builds ours from them, so ``output()`` is the pausable one."""
    transport = compat.smallwebrtc_transport(
        SmallWebRTCConnection(), TransportParams(audio_out_enabled=True), PausableWebRTCOutput
    )
    output = transport.output()
    assert isinstance(output, PausableWebRTCOutput) and output is transport.output()
    assert output._client is transport._client and output._params is transport._params
