"""The import paths users were told before the folders keep working, each with a DeprecationWarning
that names the new one, and give the very same objects as the new paths."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

#: (old statement, new statement, names both must bind to the same object, the new path the warning names)
MOVES = [
    (
        "from tts_service.pipecat_service import WarmlineTTSService, WarmlineTTSSettings",
        "from tts_service.pipecat import WarmlineTTSService, WarmlineTTSSettings",
        ("WarmlineTTSService", "WarmlineTTSSettings"),
        "tts_service.pipecat",
    ),
    (
        "from tts_service.pipecat_frames import BotOutputPauseFrame, SpeculativeAnswerFrame",
        "from tts_service.pipecat.frames import BotOutputPauseFrame, SpeculativeAnswerFrame",
        ("BotOutputPauseFrame", "SpeculativeAnswerFrame"),
        "tts_service.pipecat",
    ),
    (
        "from tts_service.livekit_tts import WarmlineTTS, WarmlineStream",
        "from tts_service.livekit import WarmlineTTS, WarmlineStream",
        ("WarmlineTTS", "WarmlineStream"),
        "tts_service.livekit",
    ),
    (
        "from agent.stt import PocketsphinxSTTService, DecoderPool",
        "from agent.stt.sphinx import PocketsphinxSTTService, DecoderPool",
        ("PocketsphinxSTTService", "DecoderPool"),
        "agent.stt.sphinx",
    ),
    (
        "from tts_service.runtime import EngineRuntime, RuntimeSession",
        "from tts_service.runtime.bridge import EngineRuntime, RuntimeSession",
        ("EngineRuntime", "RuntimeSession"),
        None,  # the folder keeps this path as its own: no warning
    ),
]


@pytest.mark.parametrize(("old", "new", "names", "named"), MOVES, ids=[m[0].split()[1] for m in MOVES])
def test_the_old_path_imports_the_same_objects_with_a_warning(
    old: str, new: str, names: tuple[str, ...], named: str | None
) -> None:
    """In a fresh interpreter (a module warns once, when first imported) both paths bind one object."""
    code = textwrap.dedent(
        f"""
        import warnings
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            {old}
            old = {{name: globals()[name] for name in {names!r}}}
        {new}
        assert all(globals()[name] is old[name] for name in {names!r}), "different objects"
        print("|".join(str(w.message) for w in caught if w.category is DeprecationWarning))
        """
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr[-2000:]
    warned = out.stdout.strip()
    if named is None:
        assert warned == ""
    else:
        assert named in warned, warned


def test_an_unknown_name_of_the_stt_folder_is_an_attribute_error() -> None:
    """The folder's lazy names are the old module's alone: a typo is not silently anything."""
    import agent.stt

    with pytest.raises(AttributeError, match="no attribute 'NoSuchService'"):
        _ = agent.stt.NoSuchService  # type: ignore[attr-defined]
