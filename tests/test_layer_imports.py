"""The tree keeps the layers of docs/ARCHITECTURE.md: read from every module's imports (as text, with
``ast``, so nothing is run), imports point down only, no two parts import each other, and each
outside library stays in the folder that owns it."""

from __future__ import annotations

import ast
import itertools
from collections import defaultdict
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("tts_service", "transports", "agent")
#: the folders' floors, bottom up: a module imports only from its own floor or those below
FLOORS = {"tts_service": 1, "transports": 2, "agent": 3}
#: the deprecated old import paths: re-exports of a folder, which nothing of the project imports
DEPRECATED = {"tts_service.pipecat_service", "tts_service.pipecat_frames", "tts_service.livekit_tts"}


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path) -> set[str]:
    """Every module ``path`` imports when it runs, at any depth (lazy imports in functions too)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found: set[str] = set()
    package = _module_name(path) if path.name == "__init__.py" else _module_name(path).rpartition(".")[0]
    typing_only = {
        id(inner)
        for node in ast.walk(tree)
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)
        for stmt in node.body
        for inner in ast.walk(stmt)
    }
    for node in ast.walk(tree):
        if id(node) in typing_only:
            continue  # for the type checker alone: nothing is imported when the module runs
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)  # `from pkg import module`
    return found


MODULES: dict[str, set[str]] = {
    _module_name(path): _imports(path)
    for package in PACKAGES
    for path in sorted((ROOT / package).rglob("*.py"))
}


def _project_imports(module: str) -> set[str]:
    """The project's modules that ``module`` imports (names that are modules, not the names in them)."""
    return {name for name in MODULES[module] if name in MODULES and name != module}


def _library_imports(module: str) -> set[str]:
    return {name.split(".")[0] for name in MODULES[module]} - set(PACKAGES)


def _part(module: str) -> str:
    """The part a module belongs to: its folder two levels down (``tts_service.pipecat``), or itself."""
    parts = module.split(".")
    if len(parts) >= 3 or (len(parts) == 2 and any(m.startswith(module + ".") for m in MODULES)):
        return ".".join(parts[:2])
    return module


def test_the_new_folders_exist_and_are_read() -> None:
    """The reader sees the parts the layer rules name (a rename that empties them fails here)."""
    for module in (
        "tts_service.pipecat.service",
        "tts_service.livekit.tts",
        "tts_service.runtime.bridge",
        "agent.stt.tiny",
        "agent.stt.choice",
        "tts_service.engine.session",
    ):
        assert module in MODULES, module
    assert "tts_service.engine.session" in _project_imports("tts_service.runtime.bridge")


def test_imports_point_down_the_floors() -> None:
    """tts_service imports neither transports nor agent; transports never imports agent."""
    upward = [
        f"{module} -> {imported}"
        for module in MODULES
        for imported in _project_imports(module)
        if FLOORS[imported.split(".")[0]] > FLOORS[module.split(".")[0]]
    ]
    assert upward == []


def test_no_two_parts_import_each_other() -> None:
    """The graph of parts (folders, and the top modules of each package) has no circle."""
    graph: dict[str, set[str]] = defaultdict(set)
    for module in MODULES:
        for imported in _project_imports(module):
            if _part(imported) != _part(module):
                graph[_part(module)].add(_part(imported))
    state: dict[str, int] = {}  # 1: on the path, 2: done
    circle: list[str] = []

    def visit(part: str, path: list[str]) -> bool:
        state[part] = 1
        for nxt in sorted(graph[part]):
            if state.get(nxt) == 1:
                circle.extend([*path[path.index(nxt) :], nxt] if nxt in path else [part, nxt])
                return True
            if nxt not in state and visit(nxt, [*path, nxt]):
                return True
        state[part] = 2
        return False

    for part in sorted(graph):
        if part not in state and visit(part, [part]):
            break
    assert circle == [], " -> ".join(circle)


def test_the_engine_imports_only_itself_dsp_and_errors() -> None:
    allowed = ("tts_service.engine", "tts_service.dsp", "tts_service.errors")
    bad = [
        f"{module} -> {imported}"
        for module in MODULES
        if module.startswith("tts_service.engine")
        for imported in _project_imports(module)
        if not imported.startswith(allowed) and imported != "tts_service"
    ]
    assert bad == []


@pytest.mark.parametrize(
    ("library", "owners"),
    [
        # inside tts_service, Pipecat only in its folder; transports' Pipecat halves and the agent above
        (
            "pipecat",
            (
                "tts_service.pipecat",
                "transports.twilio.pipecat_transport",
                "transports.webrtc",
                "agent",
            ),
        ),
        ("livekit", ("tts_service.livekit",)),
        (
            "asyncio",
            (
                "tts_service.runtime.bridge",
                "tts_service.pipecat",
                "tts_service.livekit",
                "tts_service.remote.session",
                "tts_service.benchmark",
                "tts_service.cli",
                "tts_service.runtime.warmup",
                "transports",
                "agent",
            ),
        ),
    ],
)
def test_each_library_stays_in_the_folders_that_own_it(library: str, owners: tuple[str, ...]) -> None:
    outside = [
        module
        for module in MODULES
        if library in _library_imports(module) and not module.startswith(owners) and module not in DEPRECATED
    ]
    assert outside == []


def test_the_decisions_of_the_turn_taking_import_no_pipecat() -> None:
    """``agent/turn_taking``'s state machines are sans-I/O; only its Pipecat side imports Pipecat."""
    pipecat_side = {
        "agent.turn_taking.strategies",
        "agent.turn_taking.speculation",
        "agent.turn_taking.frames",
    }
    bad = [
        module
        for module in MODULES
        if module.startswith("agent.turn_taking.") and module not in pipecat_side
        for library in _library_imports(module)
        if library in {"pipecat", "asyncio"}
    ]
    assert bad == []


def test_speech_recognition_imports_none_of_the_agents_top_modules() -> None:
    """``agent/stt`` sits below the pipeline and the server that use it."""
    bad = [
        f"{module} -> {imported}"
        for module, imported in itertools.chain.from_iterable(
            ((m, i) for i in _project_imports(m)) for m in MODULES if m.startswith("agent.stt")
        )
        if imported.startswith("agent.") and not imported.startswith(("agent.stt", "agent.turn_taking"))
    ]
    assert bad == []


def test_nothing_of_the_project_imports_the_deprecated_paths() -> None:
    users = [
        f"{module} -> {imported}" for module in MODULES for imported in _project_imports(module) & DEPRECATED
    ]
    assert users == []
