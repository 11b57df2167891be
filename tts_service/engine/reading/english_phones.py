"""Phone numbers: one token ("415-555-0188", "(212) 555-0199" glued) or spaced groups ("+1 415
555 0188", "0800 123 456"), digit by digit with a pause between the groups."""

from __future__ import annotations

import re

from tts_service.engine.reading.english_spans import Walk
from tts_service.engine.reading.words import NumberWords

__all__ = ["phone_one", "phone_spaced", "vanity"]

_PHONE_ONE = re.compile(
    r"^(?:\+?(?P<cc>\d{1,3})[-. ]?)?(?:\(?(?P<a1>\d{3})\)[-\s]?|(?P<a2>\d{3})[-.])"
    r"(?P<b>\d{3})[-.](?P<c>\d{4})$"
    r"|^(?P<b2>\d{3})-(?P<c2>\d{4})$|^(?P<tf>1-8\d\d)-(?P<tb>\d{3})-(?P<tc>\d{4})$"
)
_VANITY = re.compile(
    r"^(?:(?P<one>1)-)?(?P<area>8(?:00|33|44|55|66|77|88))-(?P<rest>(?=[\w-]*[A-Za-z])[A-Za-z0-9]+(?:-[A-Za-z0-9]+)*)$"
)
_PHONE_GROUP = re.compile(r"^(?:\+\d{1,3}(?:\(\d{3})?|\d{1,6}|\d{3}-\d{4}|\d{3}\)-?\d{3}-\d{4})$")  # "900123"
_PHONE_CONTEXT = frozenset(
    ["call", "dial", "phone", "number", "text", "fax", "at", "line", "reach", "tel", "mobile", "cell", "on"]
)


def phone_one(core: str, w: NumberWords) -> str | None:
    m = _PHONE_ONE.match(core)
    if m is None:
        return None
    groups = [p for g in m.groups() if g for p in g.split("-")]
    head = "plus " if core.startswith("+") else ""
    area = m.group("a1") or m.group("a2") or (m.group("tf") or "")[2:]
    return head + ", ".join(_group(g, w, area=g == area) for g in groups)


def _group(digits: str, w: NumberWords, *, area: bool) -> str:
    """One group of a phone number, digit by digit; a toll-free 800 is "eight hundred", as said."""
    return "eight hundred" if area and digits == "800" else w.digits(digits)


def vanity(core: str, w: NumberWords) -> str | None:
    """A toll-free number in letters: "1-800-GO-U-HAUL" -> "one, eight hundred, go, U, haul"; a
    group that is a word is said as one, the others letter by letter."""
    m = _VANITY.match(core)
    if m is None or not 7 <= sum(c.isalnum() for c in m.group("rest")) <= 10:
        return None
    said = [w.digits(m.group("one"))] if m.group("one") else []
    said.append(_group(m.group("area"), w, area=True))
    for part in m.group("rest").split("-"):
        if part.isdigit():
            said.append(w.digits(part))
        elif len(part) >= 2 and any(c in "AEIOUYaeiouy" for c in part):
            said.append(part.lower())
        else:
            said.append(w.letters(part))
    return ", ".join(said)


def phone_spaced(walk: Walk, i: int) -> int:
    j = i
    while (
        walk.core(j)
        and j - i < 5
        and _PHONE_GROUP.match(walk.core(j))
        and (j == i or walk.trail(j - 1) in ("", ")"))
    ):
        j += 1
    if j - i < 2:
        return 0
    cores = [walk.core(k) for k in range(i, j)]
    digits = sum(c.isdigit() for c in "".join(cores))
    prev = walk.core(i - 1).lower()
    first = cores[0]
    plausible = (
        first.startswith(("+", "0"))
        or walk.lead(i) == "("
        or prev in _PHONE_CONTEXT
        or ([len(c) for c in cores[-3:]] == [3, 3, 4])
    )
    if not 7 <= digits <= 15 or not plausible:
        return 0
    counts = [sum(ch.isdigit() for ch in c) for c in cores]
    area = next((k for k, c in enumerate(cores) if c.strip("()") == "800" and sum(counts[k:]) == 10), -1)
    spoken = [
        ("plus " if c.startswith("+") else "")
        + ", ".join(_group(g, walk.w, area=k == area) for g in re.split(r"[-()]+", c) if g.strip("+"))
        for k, c in enumerate(cores)
    ]
    spoken = [
        s + ","
        if k < len(spoken) - 1 and (not walk.trail(i + k) or (walk.trail(i + k) == ")" and "(" in cores[k]))
        else s
        for k, s in enumerate(spoken)
    ]
    return walk.set(i, *spoken)
