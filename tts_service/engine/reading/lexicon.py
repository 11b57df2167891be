"""A pronunciation lexicon: a word to a respelling ("Warmline = warm line") or to the backend's
phonemes ("Nguyen /ŋwˈɪn/").

One entry a line; blank lines and ``#`` comments are skipped. Words are matched as written first,
then in lower case. ``parse`` refuses a line it cannot read, naming it, and phonemes with a symbol
the backend cannot say, naming the symbol; no I/O here (the caller reads the file).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from tts_service.errors import InvalidInputError

__all__ = ["Lexicon", "LexiconError", "as_lexicon", "lexicon_from_mapping", "parse_lexicon"]

_RESPELL = re.compile(r"^(?P<word>[^\s=/]+)\s*=\s*(?P<said>\S.*?)\s*$")
_PHONEMES = re.compile(r"^(?P<word>[^\s=/]+)\s+/(?P<ph>[^/]+)/\s*$")


class LexiconError(InvalidInputError):
    """A lexicon line that does not parse, or phonemes the backend cannot say."""


@dataclass(frozen=True, slots=True)
class Lexicon:
    """Words to respellings and to phonemes; empty by default."""

    respell: Mapping[str, str] = field(default_factory=dict)
    phonemes: Mapping[str, str] = field(default_factory=dict)

    def __bool__(self) -> bool:
        return bool(self.respell or self.phonemes)

    def lookup(self, word: str) -> tuple[str, str] | None:
        """("respell", words) or ("phonemes", symbols) for ``word``, or None."""
        for key in (word, word.lower()):
            if key in self.phonemes:
                return "phonemes", self.phonemes[key]
            if key in self.respell:
                return "respell", self.respell[key]
        return None


def parse_lexicon(text: str, *, symbols: Iterable[str] = ()) -> Lexicon:
    """A lexicon from its text; ``symbols``: the phoneme symbols the backend can say (none: no phonemes)."""
    allowed = frozenset(symbols)
    respell: dict[str, str] = {}
    phonemes: dict[str, str] = {}
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if (m := _PHONEMES.match(line)) is not None:
            ph = m.group("ph").strip()
            bad = next((c for c in ph if c not in allowed and not c.isspace()), None)
            if bad is not None:
                raise LexiconError(
                    f"lexicon line {number}: {raw!r}: the voice cannot say the phoneme symbol {bad!r}"
                    + ("" if allowed else " (this backend takes no phonemes; write a respelling)")
                )
            phonemes[m.group("word")] = ph.replace(" ", "")
        elif (m := _RESPELL.match(line)) is not None:
            respell[m.group("word")] = m.group("said")
        else:
            raise LexiconError(
                f"lexicon line {number}: {raw!r}: write 'word = respelling' or 'word /phonemes/'"
            )
    return Lexicon(respell, phonemes)


def lexicon_from_mapping(entries: Mapping[str, str], *, symbols: Iterable[str] = ()) -> Lexicon:
    """A lexicon from ``{"word": "respelling" or "/phonemes/"}`` (a WebSocket ``config``, an adapter)."""
    if not isinstance(entries, Mapping) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in entries.items()
    ):
        raise LexiconError("a lexicon is an object of words to respellings or /phonemes/")
    lines = []
    for word, said in entries.items():
        if not word or any(c.isspace() for c in word):
            raise LexiconError(f"lexicon word {word!r}: one word, no spaces")
        lines.append(f"{word} {said}" if said.startswith("/") else f"{word} = {said}")
    return parse_lexicon("\n".join(lines), symbols=symbols)


def as_lexicon(value: Lexicon | Mapping[str, str], symbols: Iterable[str] = ()) -> Lexicon:
    """A ``Lexicon`` as is, or one made from a mapping (checked against ``symbols``)."""
    return value if isinstance(value, Lexicon) else lexicon_from_mapping(value, symbols=symbols)
