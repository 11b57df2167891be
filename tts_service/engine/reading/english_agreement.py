"""What the words of a unit decide of each other once each token is read.

Apart from the walk in ``english`` because each is one pass over the whole unit's spoken words,
after every rule for one token or a span has run:

* a second identifier is said as the first ("ending in 0392 and 5518", "zip codes 80202 through
  80239": digit by digit, both);
* amounts and marked measures listed before the one noun they all describe are said as the last
  one is, singular ("$20 or $50 bills": twenty dollar or fifty dollar bills; '7", 9", and 14"
  lengths': seven inch, nine inch, and fourteen inch lengths);
* "a" before a number said with a vowel sound is "an" ("a 8-hour shift": an eight hour shift);
* a range after "between" is "and" ("between 9-11": between nine and eleven).

Each takes the unit's cores, their trailing marks, the spoken words so far (changed in place)
and the tokens decided elsewhere (``fixed``: a lexicon's, a tag's, an earlier unit's), which it
never changes.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from tts_service.engine.reading.english_roles import MARKED
from tts_service.engine.reading.words import NumberWords

__all__ = ["agree"]

#: words between two identifiers of one kind
_ID_JOINS = frozenset(["and", "or", "&", "to", "through", "thru"])
#: words joining the amounts of a list
_LIST_JOINS = frozenset(["and", "or", "&"])
#: what is said once before a noun ("a twenty dollar bill", "a nine inch zipper"), and its plural
_SINGULAR = {"dollar": "dollars", "euro": "euros", "pound": "pounds", "inch": "inches", "foot": "feet"}
#: the first spoken word of a number that takes "an" ("an eight-hour shift", "an 11am call", "an F")
_VOWEL_SOUND = re.compile(r"^(?:eight|eleven|eighteen|[AEFHILMNORSX]\.?$)")


def agree(
    cores: Sequence[str], trails: Sequence[str], out: list[str], fixed: Mapping[int, str], w: NumberWords
) -> None:
    """Every pass of the module over one unit, in order (``out`` changed in place)."""
    _paired_identifiers(cores, out, fixed, w)
    _listed_amounts(cores, trails, out, fixed)
    _articles(cores, out, fixed)
    _between(cores, out)


def _paired_identifiers(
    cores: Sequence[str], out: list[str], fixed: Mapping[int, str], w: NumberWords
) -> None:
    for k in range(1, len(out) - 1):
        left, right = cores[k - 1], cores[k + 1]
        paired = cores[k].lower() in _ID_JOINS and len(left) == len(right) >= 3
        if (
            paired
            and left.isdigit()
            and right.isdigit()
            and out[k - 1] == w.digits(left)
            and k + 1 not in fixed
        ):
            out[k + 1] = w.digits(right)


def _listed_amounts(
    cores: Sequence[str], trails: Sequence[str], out: list[str], fixed: Mapping[int, str]
) -> None:
    for k in range(len(out) - 1, 0, -1):
        last = out[k].rsplit(" ", 1)[-1] if _listable(cores[k]) else ""
        if last not in _SINGULAR:
            continue
        plural = _SINGULAR[last]
        j = k - 1
        while j >= 0 and (cores[j].lower() in _LIST_JOINS or trails[j] == ","):
            j -= 1 if cores[j].lower() in _LIST_JOINS else 0
            listed = j >= 0 and _listable(cores[j]) and out[j].endswith(" " + plural)
            if not listed or j in fixed:
                break
            out[j] = out[j][: -len(plural)] + last
            j -= 1


def _listable(core: str) -> bool:
    """An amount or a measure with its mark, which can be listed before one noun."""
    return core[:1] in "$€£" or MARKED.match(core) is not None


def _articles(cores: Sequence[str], out: list[str], fixed: Mapping[int, str]) -> None:
    for k in range(1, len(out)):
        numeric = cores[k][:1].isdigit() or cores[k][:1] in "$€£"
        said = out[k].split(" ", 1)[0] if numeric else ""
        if cores[k - 1] == "a" and k - 1 not in fixed and _VOWEL_SOUND.match(said):
            out[k - 1] = "an"  # (not "A": "Row A 8" is the letter)


def _between(cores: Sequence[str], out: list[str]) -> None:
    for k, said in enumerate(out):
        if k and said and " to " in said and cores[k - 1].lower() == "between" and "-" in cores[k]:
            out[k] = said.replace(" to ", " and ", 1)
