"""Phone numbers: one token ("415-555-0188", "(212) 555-0199" glued) or spaced groups ("+1 415
555 0188", "0800 123 456"), digit by digit with a pause between the groups."""

from __future__ import annotations

import re

from tts_service.engine.reading.english_spans import Walk
from tts_service.engine.reading.words import NumberWords

__all__ = ["phone_one", "phone_spaced"]

_PHONE_ONE = re.compile(
    r"^(?:\+?(?P<cc>\d{1,3})[-. ]?)?(?:\(?(?P<a1>\d{3})\)[-\s]?|(?P<a2>\d{3})[-.])"
    r"(?P<b>\d{3})[-.](?P<c>\d{4})$"
    r"|^(?P<b2>\d{3})-(?P<c2>\d{4})$|^(?P<tf>1-8\d\d)-(?P<tb>\d{3})-(?P<tc>\d{4})$"
)
_PHONE_GROUP = re.compile(r"^(?:\+\d{1,3}(?:\(\d{3})?|\d{1,5}|\d{3}-\d{4}|\d{3}\)-?\d{3}-\d{4})$")
_PHONE_CONTEXT = frozenset(
    ["call", "dial", "phone", "number", "text", "fax", "at", "line", "reach", "tel", "mobile", "cell", "on"]
)


def phone_one(core: str, w: NumberWords) -> str | None:
    m = _PHONE_ONE.match(core)
    if m is None:
        return None
    groups = [g for g in m.groups() if g]
    head = "plus " if core.startswith("+") else ""
    return head + ", ".join(w.digits(g) for g in groups)


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
    spoken = [
        ("plus " if c.startswith("+") else "")
        + ", ".join(walk.w.digits(g) for g in re.split(r"[-()]+", c) if g.strip("+"))
        for c in cores
    ]
    spoken = [
        s + "," if k < len(spoken) - 1 and not walk.trail(i + k).strip(")") else s
        for k, s in enumerate(spoken)
    ]
    return walk.set(i, *spoken)
