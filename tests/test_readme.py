"""README's two commands stay true: CI runs exactly the README's test command."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _readme_commands() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    return re.findall(r"```sh\n(.+?)\n```", text, flags=re.S)


def test_ci_runs_the_readme_test_command_exactly() -> None:
    """The second command of the README is the last line of .ci/run, character for character."""
    commands = _readme_commands()
    ci_lines = (ROOT / ".ci" / "run").read_text(encoding="utf-8").strip().splitlines()
    assert ci_lines[-1] == commands[1]


def test_readme_main_command_speaks_with_the_cli() -> None:
    """The first README command installs the package and runs the warmline CLI."""
    first = _readme_commands()[0]
    assert "pip install -e ." in first and "warmline " in first


def test_readme_engine_example_runs() -> None:
    """The README's engine-in-one-screen example runs as written and yields whole frames."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    code = re.findall(r"```python\n(.+?)\n```", text, flags=re.S)[0]
    scope: dict[str, object] = {}
    exec(compile(code, "README.md", "exec"), scope)
    pcm = scope["pcm"]
    assert isinstance(pcm, list) and len(pcm) > 10 and all(len(b) == 640 * 2 for b in pcm)
