"""Text to a Piper voice's phoneme ids, through espeak-ng (``phonemizer``) in the voice's language.

espeak-ng's library and its data come from the ``espeakng-loader`` wheel, so no system package is
needed; ``phonemizer`` is pointed at them once per process (``use_bundled_espeak``). A Piper
voice was trained on espeak-ng's IPA with stress marks and the clause punctuation kept, words
separated by spaces; each character (after NFD) is one id from the voice's ``phoneme_id_map``,
and the ids are laid out as Piper's trainer did: ``^``, then each phoneme followed by the pad
``_``, then ``$``.

One ``Espeak`` per espeak language: phonemizer gives each its own copy of the library, and a lock
serializes the calls to it (espeak-ng is not thread-safe).
"""

from __future__ import annotations

import functools
import threading
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from tts_service.errors import ModelNotAvailableError

PAD, BOS, EOS = "_", "^", "$"
#: phoneme characters that are pauses, not sounds (espeak-ng's kept punctuation)
PAUSE_CHARS = frozenset(',.;:!?¡¿—…"«»“”()-、。，！？；：،؟۔।')
WORD_CACHE_SIZE = 4096

_library_lock = threading.Lock()
_library_ready = False


class EspeakLanguageError(ModelNotAvailableError):
    """espeak-ng (as installed) has no voice for this language."""


def use_bundled_espeak() -> None:
    """Point phonemizer at the espeak-ng library and data of the ``espeakng-loader`` wheel (once)."""
    global _library_ready
    with _library_lock:
        if _library_ready:
            return
        try:
            import espeakng_loader
            from phonemizer.backend.espeak.wrapper import EspeakWrapper
        except ImportError as exc:
            raise ModelNotAvailableError(
                f"the piper backend needs phonemizer and espeakng-loader ({exc}): "
                f"pip install 'warmline[piper]'"
            ) from exc
        EspeakWrapper.set_library(espeakng_loader.get_library_path())
        EspeakWrapper.set_data_path(espeakng_loader.get_data_path())
        _library_ready = True


@functools.cache
def espeak_languages() -> frozenset[str]:
    """The espeak-ng voice names this installation has."""
    use_bundled_espeak()
    from phonemizer.backend import EspeakBackend

    return frozenset(str(k) for k in EspeakBackend.supported_languages())


def resolve_language(voice: str) -> str:
    """espeak-ng's name for a Piper config's ``espeak.voice``: itself, or its one regional variant
    (Piper's ``fr`` is espeak-ng's ``fr-fr``); raises EspeakLanguageError."""
    known = espeak_languages()
    name = voice.strip().lower()
    if name in known:
        return name
    if f"{name}-{name}" in known:
        return f"{name}-{name}"
    variants = sorted(k for k in known if k.startswith(name + "-"))
    if len(variants) == 1:
        return variants[0]
    raise EspeakLanguageError(f"espeak-ng has no language {voice!r} (this installation has {len(known)})")


@dataclass(frozen=True, slots=True)
class PhonemeIds:
    """A unit's ids and, for each phoneme word that holds a sound, its (first, last) id index."""

    ids: list[int]
    words: list[tuple[int, int]]
    #: the phoneme characters that the voice's map lacks (dropped)
    missing: frozenset[str]


def to_ids(phonemes: str, id_map: Mapping[str, Sequence[int]]) -> PhonemeIds:
    """Piper's id layout of ``phonemes`` (``^ _ p _ p _ ... $``) with its phoneme words located."""
    pad = list(id_map[PAD])
    ids: list[int] = [*id_map[BOS], *pad]
    words: list[tuple[int, int]] = []
    missing: set[str] = set()
    first = last = -1
    for ch in unicodedata.normalize("NFD", phonemes):
        if ch == " " and first >= 0:
            words.append((first, last))
            first = last = -1
        mapped = id_map.get(ch)
        if mapped is None:
            missing.add(ch)
            continue
        if ch not in PAUSE_CHARS and not ch.isspace():
            if first < 0:
                first = len(ids)
            last = len(ids) + len(mapped) - 1
        ids += [*mapped, *pad]
    if first >= 0:
        words.append((first, last))
    ids += id_map[EOS]
    return PhonemeIds(ids, words, frozenset(missing))


class Espeak:
    """espeak-ng in one language: phonemes of a text, and phoneme-word counts of single words."""

    def __init__(self, language: str) -> None:
        use_bundled_espeak()
        from phonemizer.backend import EspeakBackend
        from phonemizer.separator import Separator

        self.language = resolve_language(language)
        self._backend: Any = EspeakBackend(
            self.language, preserve_punctuation=True, with_stress=True, language_switch="remove-flags"
        )
        self._separator = Separator(phone="", syllable="", word=" ")
        self._lock = threading.Lock()
        self._count = functools.lru_cache(maxsize=WORD_CACHE_SIZE)(self._count_uncached)

    def phonemize(self, text: str) -> str:
        """espeak-ng's IPA of ``text``, stress marks and clause punctuation kept, words spaced."""
        with self._lock:
            return self._phonemize_locked(text)

    def word_counts(self, words: Sequence[str]) -> list[int]:
        """How many spoken phoneme words each source word reads as on its own."""
        with self._lock:
            return [self._count(w) for w in words]

    def _phonemize_locked(self, text: str) -> str:
        out = self._backend.phonemize([text.replace("\n", " ")], separator=self._separator, strip=True)
        return " ".join(str(out[0]).split()) if out else ""

    def _count_uncached(self, word: str) -> int:
        return sum(1 for w in self._phonemize_locked(word).split(" ") if any(c not in PAUSE_CHARS for c in w))


__all__ = [
    "PAUSE_CHARS",
    "Espeak",
    "EspeakLanguageError",
    "PhonemeIds",
    "espeak_languages",
    "resolve_language",
    "to_ids",
    "use_bundled_espeak",
]
