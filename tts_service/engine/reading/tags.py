"""Inline tags an LLM can be prompted to write, taken out of a unit before it is cleaned and read.

    <say-as interpret-as="characters|digits|telephone|date|time|cardinal|ordinal">X</say-as>
    <sub alias="spoken words">X</sub>
    <phoneme alphabet="ipa" ph="...">X</phoneme>      (said with those phonemes where the model takes them)
    <break time="300ms"/>                               (a pause: a comma, or a full stop from 500 ms)

Each element becomes one placeholder word (private-use characters around its number) that the
reader replaces with the element's spoken form, while marks keep ``X`` as written. Tags are never
spoken: an unknown or malformed tag is dropped by the markdown cleaning, its text read as text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["Tagged", "extract", "placeholder_index"]

_OPEN, _CLOSE = "\ue000", "\ue001"
_ELEMENT = re.compile(
    r"<(?P<name>say-as|sub|phoneme)\b(?P<attrs>[^<>]*)>(?P<body>[^<>]*)</(?P=name)\s*>"
    r"|<break\b(?P<break_attrs>[^<>]*)/?>",
    re.IGNORECASE,
)
# what is left of a tag that is cut, unclosed or misspelt: never read out
_STRAY = re.compile(r"</?(?:say-as|sub|phoneme|break)\b[^<>]*>?", re.IGNORECASE)
_ATTR = re.compile(r"""([\w-]+)\s*=\s*(?:"([^"]*)"|'([^']*)')""")
_PLACEHOLDER = re.compile(rf"^{_OPEN}(\d+){_CLOSE}$")
_TIME = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(ms|s)\s*$")


@dataclass(frozen=True, slots=True)
class Tagged:
    """One element: what was written inside it, and how to say it."""

    kind: str  # "say-as", "sub", "phoneme", "break"
    written: str
    value: str  # interpret-as, alias, phonemes, or "," / "." for a break


def extract(text: str) -> tuple[str, list[Tagged]]:
    """``text`` with each well-formed element replaced by a placeholder word, and the elements."""
    found: list[Tagged] = []

    def swap(m: re.Match[str]) -> str:
        if m.group("name") is None:
            attrs = _attrs(m.group("break_attrs"))
            pause = _TIME.match(attrs.get("time", "")) if attrs.get("time") else None
            ms = float(pause.group(1)) * (1 if pause.group(2) == "ms" else 1000) if pause else 300.0
            found.append(Tagged("break", "", "." if ms >= 500 else ","))
        else:
            name = m.group("name").lower()
            attrs = _attrs(m.group("attrs"))
            key = {"say-as": "interpret-as", "sub": "alias", "phoneme": "ph"}[name]
            body = " ".join(m.group("body").split())
            if not body and name != "sub":
                return ""
            found.append(Tagged(name, body, attrs.get(key, "")))
        return f" {_OPEN}{len(found) - 1}{_CLOSE} "

    return _STRAY.sub(" ", _ELEMENT.sub(swap, text)), found


def placeholder_index(token: str) -> int | None:
    """The element number a placeholder word stands for, or None for any other word."""
    m = _PLACEHOLDER.match(token)
    return int(m.group(1)) if m else None


def _attrs(text: str) -> dict[str, str]:
    return {
        m.group(1).lower(): m.group(2) if m.group(2) is not None else m.group(3) for m in _ATTR.finditer(text)
    }
