"""The README and every page of ``docs/`` stay true, in seconds: commands parse, links lead somewhere.

Parsing, not running: every ``warmline`` command line of a ``sh`` block goes through the real
command line's parser (``agent.cli.build_parser``), and every flag of a usage synopsis (a ``text``
block) or of an inline command is one of its subcommand's; every ``python benchmarks/X.py`` or
``python examples/X.py`` names a script that exists and is parsed by a parser rebuilt from that
script's own ``add_argument`` calls (importing a benchmark would import Pipecat, LiveKit or torch).
Every relative link points at a file (and a heading, for ``#anchor``), every repository path in
backticks exists, every ``python`` block compiles, and the engine page's blocks run on hibari.
``tests/test_readme.py`` runs the README's two commands and its client blocks against its server.
"""

from __future__ import annotations

import argparse
import ast
import asyncio
import contextlib
import io
import re
import shlex
import types
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent.cli import build_parser

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.M | re.S)
#: where a command line ends and the next begins
OPERATORS = {"&&", "||", "|", ";", "&"}
PYTHONS = {"python", "python3", "python3.11"}
#: the folders a path in backticks is read from (relative to the repository root)
REPO_FOLDERS = ("tts_service", "transports", "agent", "benchmarks", "examples", "tests", "docs")
#: module paths the code moved away from (they still import, with a deprecation warning): the docs
#: name the new ones (``tts_service/pipecat/``, ``tts_service/livekit/``, ``tts_service/runtime/``,
#: ``agent/stt/``)
OLD_NAMES = re.compile(
    r"(?<!test_)\bpipecat_(service|text|held|settings|frames|compat)\b"
    r"|(?<!test_)\blivekit_(tts|compat)\b"
    r"|tts_service[./](runtime\.py|scheduler|warmup)\b"
    r"|\b(utterance_stt|stt_tiny|tiny_whisper|stt_whisper|stt_choice)\b"
    r"|\bagent[./](stt\.py|decoders)\b"
)
#: ARCHITECTURE.md names the old paths where it says they are kept as deprecated re-exports
OLD_NAMES_EXEMPT = {"ARCHITECTURE.md"}


def _name(page: Path) -> str:
    return str(page.relative_to(ROOT))


def _blocks(page: Path, *languages: str) -> list[str]:
    return [m.group(2) for m in FENCE.finditer(page.read_text(encoding="utf-8")) if m.group(1) in languages]


def _prose(page: Path) -> str:
    """The page without its fenced blocks."""
    return FENCE.sub("", page.read_text(encoding="utf-8"))


def _code_spans(page: Path) -> list[str]:
    """Inline code of the page's prose, whitespace (a wrapped line) made one space."""
    return [" ".join(span.split()) for span in re.findall(r"`([^`]+)`", _prose(page))]


def _command_lines(block: str) -> Iterator[list[str]]:
    """Each command of a shell block as argv: lines joined at ``\\``, split at ``&&``, ``|``, ``;``,
    comments dropped, leading ``VAR=value`` assignments dropped."""
    for line in block.replace("\\\n", " ").splitlines():
        lexer = shlex.shlex(line, posix=True, punctuation_chars=True)
        lexer.whitespace_split = True
        argv: list[str] = []
        for token in [*lexer, ";"]:
            if token not in OPERATORS:
                argv.append(token)
                continue
            while argv and re.fullmatch(r"[A-Za-z_]\w*=\S*", argv[0]):
                argv.pop(0)
            if argv:
                yield argv
            argv = []


def _shell_commands() -> list[tuple[str, list[str]]]:
    return [
        (_name(page), argv)
        for page in PAGES
        for block in _blocks(page, "sh", "bash", "shell")
        for argv in _command_lines(block)
    ]


def _warmline_commands() -> list[tuple[str, list[str]]]:
    return [(page, argv) for page, argv in _shell_commands() if argv[0] == "warmline"]


def _script_commands() -> list[tuple[str, list[str]]]:
    return [
        (page, argv)
        for page, argv in _shell_commands()
        if argv[0] in PYTHONS and len(argv) > 1 and argv[1].endswith(".py")
    ]


def _subcommand_options() -> dict[str, set[str]]:
    """Each ``warmline`` subcommand's option strings, with the top level's (``-v``)."""
    parser = build_parser()
    top = {option for action in parser._actions for option in action.option_strings}
    subparsers = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return {
        name: top | {option for action in sub._actions for option in action.option_strings}
        for name, sub in subparsers.choices.items()
    }


def _flags(text: str) -> list[str]:
    """The ``--long`` and ``-s`` flags written in a command or synopsis (``--flag=value`` as ``--flag``)."""
    return re.findall(r"(?<![\w$-])(--?[A-Za-z][\w-]*)", text)


def _script_parser(script: Path) -> argparse.ArgumentParser:
    """The script's parser, rebuilt from its ``add_argument`` calls: option strings and positionals,
    with the keywords that decide what a command line may hold (``action``, ``nargs``, literal
    ``choices``, ``int``/``float`` types). A script without any takes only positionals."""
    tree = ast.parse(script.read_text(encoding="utf-8"))
    calls = [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "add_argument"
    ]
    parser = argparse.ArgumentParser(prog=_name(script), exit_on_error=False, add_help=True)
    if not calls:
        parser.add_argument("args", nargs="*")
        return parser
    for call in sorted(calls, key=lambda c: (c.lineno, c.col_offset)):
        names = [a.value for a in call.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
        if not names or len(names) != len(call.args):
            continue  # a hidden flag named by a constant (the child of --fresh-runs): never documented
        kwargs: dict[str, object] = {}
        for keyword in call.keywords:
            value = keyword.value
            if keyword.arg in ("action", "nargs") and isinstance(value, ast.Constant):
                kwargs[keyword.arg] = value.value
            elif keyword.arg == "choices" and isinstance(value, ast.List | ast.Tuple):
                with contextlib.suppress(ValueError):
                    kwargs["choices"] = ast.literal_eval(value)
            elif keyword.arg == "type" and isinstance(value, ast.Name) and value.id in ("int", "float"):
                kwargs["type"] = {"int": int, "float": float}[value.id]
        parser.add_argument(*names, **kwargs)  # type: ignore[arg-type]
    return parser


def _github_anchors(page: Path) -> set[str]:
    """The anchors GitHub gives the page's headings."""
    anchors: set[str] = set()
    for heading in re.findall(r"^#+ (.+)$", _prose(page), flags=re.M):
        slug = re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")
        anchor, n = slug, 0
        while anchor in anchors:
            n += 1
            anchor = f"{slug}-{n}"
        anchors.add(anchor)
    return anchors


def _test_id(value: object) -> str:
    return shlex.join(value) if isinstance(value, list) else str(value)


def test_the_pages_hold_commands_to_check() -> None:
    """The scan finds what it checks: the README's server command, the docs' scripts."""
    warmline = _warmline_commands()
    assert ("README.md", ["warmline", "serve"]) in warmline
    assert {page for page, _ in warmline} >= {"README.md", "docs/CLI.md", "docs/AGENT.md", "docs/DEPLOY.md"}
    assert len(_script_commands()) >= 10


@pytest.mark.parametrize(("page", "argv"), _warmline_commands(), ids=_test_id)
def test_warmline_command_parses(page: str, argv: list[str]) -> None:
    """Every ``warmline`` command in a shell block is one the real command line accepts."""
    errors = io.StringIO()
    with contextlib.redirect_stderr(errors):
        try:
            args = build_parser().parse_args(argv[1:])
        except SystemExit:
            pytest.fail(f"{page}: {shlex.join(argv)}\n{errors.getvalue()}")
    assert args.command == argv[1 + (argv[1].startswith("-"))], (page, argv)


def test_warmline_synopses_and_inline_commands_name_real_flags() -> None:
    """Every flag of a usage synopsis (a ``text`` block) or an inline ```warmline ...``` is its
    subcommand's."""
    options = _subcommand_options()
    written: list[tuple[str, str]] = []
    for page in PAGES:
        for block in _blocks(page, "text"):
            logical: list[str] = []
            for raw in block.splitlines():  # a synopsis goes on in its indented lines
                line = raw.split("#")[0]
                if line[:1].isspace() and logical:
                    logical[-1] += " " + line
                else:
                    logical.append(line)
            written += [(_name(page), line.strip()) for line in logical]
        written += [(_name(page), span) for span in _code_spans(page)]
    checked = 0
    for page, text in written:
        starts = list(re.finditer(r"(?:^|\| )warmline (?:-v )?(\w+)", text))
        ends = [m.start() for m in starts[1:]] + [len(text)]
        for start, end in zip(starts, ends[: len(starts)], strict=True):
            command, sub = text[start.start() : end], start.group(1)
            assert sub in options, f"{page}: no subcommand {sub!r} in {command!r}"
            unknown = [flag for flag in _flags(command) if flag not in options[sub]]
            assert not unknown, f"{page}: {command!r}: warmline {sub} has no {unknown}"
            checked += 1
    assert checked >= 20


@pytest.mark.parametrize(("page", "argv"), _script_commands(), ids=_test_id)
def test_script_command_exists_and_parses(page: str, argv: list[str]) -> None:
    """Every ``python benchmarks/X.py ...`` and ``python examples/X.py ...`` names a script that
    exists, with arguments its parser takes."""
    script = ROOT / argv[1]
    assert script.is_file(), f"{page}: {argv[1]} does not exist"
    errors = io.StringIO()
    with contextlib.redirect_stderr(errors):
        try:
            _script_parser(script).parse_args(argv[2:])
        except (argparse.ArgumentError, SystemExit) as exc:
            pytest.fail(f"{page}: {shlex.join(argv)}: {exc} {errors.getvalue()}")


def test_inline_script_commands_exist_and_name_real_flags() -> None:
    """A script named in prose (``python benchmarks/stt_bench.py --endings-only``) exists and has
    the flags written after it."""
    checked = 0
    for page in PAGES:
        for span in _code_spans(page):
            match = re.match(r"(?:python3?(?:\.11)? )?((?:benchmarks|examples)/\w+\.py)(.*)", span)
            if match is None:
                continue
            script = ROOT / match.group(1)
            assert script.is_file(), f"{_name(page)}: {match.group(1)} does not exist"
            known = {o for a in _script_parser(script)._actions for o in a.option_strings}
            unknown = [flag for flag in _flags(match.group(2)) if flag not in known]
            assert not unknown, f"{_name(page)}: {span!r}: {match.group(1)} has no {unknown}"
            checked += 1
    assert checked >= 10


def test_relative_links_lead_to_files_and_headings() -> None:
    """Every relative link of the README and the docs points at a file that exists, and an
    ``#anchor`` at one of that page's headings."""
    broken: list[str] = []
    for page in PAGES:
        links = re.sub(r"`[^`]+`", "", _prose(page))  # what inline code shows is not a link
        for target in re.findall(r"\]\(([^)\s]+)\)", links):
            if re.match(r"[a-z]+:", target):
                continue  # https:, mailto:
            path, _, anchor = target.partition("#")
            resolved = (page.parent / path).resolve() if path else page
            if not resolved.exists():
                broken.append(f"{_name(page)}: {target} (no such file)")
            elif anchor and resolved.suffix == ".md" and anchor not in _github_anchors(resolved):
                broken.append(f"{_name(page)}: {target} (no such heading in {resolved.name})")
    assert not broken, "\n".join(broken)


def test_repository_paths_in_backticks_exist() -> None:
    """A path such as ``tts_service/pipecat/`` or ``tests/test_drain.py`` in the prose exists."""
    missing = [
        f"{_name(page)}: {span}"
        for page in PAGES
        for span in _code_spans(page)
        if re.fullmatch(rf"(?:{'|'.join(REPO_FOLDERS)})/[\w./-]*", span) and not (ROOT / span).exists()
    ]
    assert not missing, "\n".join(missing)


def test_docs_name_the_new_module_paths() -> None:
    """The README and the docs name the modules where they are now, not where they were."""
    stale = [
        f"{_name(page)}:{n}: {line.strip()}"
        for page in PAGES
        if page.name not in OLD_NAMES_EXEMPT
        for n, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1)
        if OLD_NAMES.search(line)
    ]
    assert not stale, "\n".join(stale)


def test_python_blocks_compile() -> None:
    """Every ``python`` block of the README and the docs is valid Python (top-level ``await`` allowed,
    as in an asyncio REPL)."""
    count = 0
    for page in PAGES:
        for i, code in enumerate(_blocks(page, "python")):
            compile(code, f"{_name(page)} python block {i}", "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
            count += 1
    assert count >= 8


def test_engine_page_blocks_run() -> None:
    """The engine in one screen runs as written and yields whole 80 ms frames; the asyncio block
    after it runs a turn to ``Done`` through the runtime, in the same scope (it continues the first)."""
    first, runtime_block = _blocks(ROOT / "docs" / "ENGINE.md", "python")[:2]
    scope: dict[str, object] = {}
    exec(compile(first, "docs/ENGINE.md", "exec"), scope)
    pcm = scope["pcm"]
    assert isinstance(pcm, list) and len(pcm) > 10 and all(len(b) == 640 * 2 for b in pcm)
    code = compile(runtime_block, "docs/ENGINE.md", "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
    coroutine = types.FunctionType(code, scope)()
    asyncio.run(asyncio.wait_for(coroutine, timeout=60))
