"""Backchannels and stop words by language: what a caller says over the bot to show they are
listening ("sí", "d'accord", "genau"), and the words that always stop it ("espera", "attendez").

``BargeIn`` takes both (``agent.settings`` passes the call's language); English is ``cues``'s own
lists. Each table is what speakers of the language say on the phone while listening, written
from common usage, short and unambiguous: a word that also opens a real question ("bueno" in
Mexico answers the phone, "alors" opens a sentence) is left out, since counting it a backchannel
would let a caller's turn go unheard. A language with no table keeps the English lists, which
its callers' "mm hmm" and "okay" still match.
"""

from __future__ import annotations

from dataclasses import dataclass

from agent.turn_taking.cues import BACKCHANNELS, STOP_WORDS

__all__ = ["LANGUAGES", "ListeningWords", "listening_words"]

#: interjections every language's callers use ("mm hmm", "okay")
_SHARED = ("mm hmm", "mhm", "hmm", "uh huh", "okay", "ok")


@dataclass(frozen=True, slots=True)
class ListeningWords:
    """One language's backchannel phrases and stop words."""

    backchannels: tuple[str, ...]
    stop_words: frozenset[str]


_TABLES: dict[str, ListeningWords] = {
    "es": ListeningWords(
        (*_SHARED, "sí", "si", "claro", "vale", "ajá", "aja", "ya", "exacto", "entiendo", "de acuerdo",
         "perfecto", "muy bien", "ah ya"),
        frozenset({"espera", "espere", "para", "pare", "no", "perdón", "perdona", "disculpa", "oiga", "qué"}),
    ),
    "fr": ListeningWords(
        (*_SHARED, "oui", "ouais", "d'accord", "voilà", "exactement", "je vois", "ah oui",
         "bien sûr", "tout à fait", "entendu", "hum"),
        frozenset({"attendez", "attends", "arrêtez", "arrête", "non", "pardon", "excusez", "quoi", "stop"}),
    ),
    "de": ListeningWords(
        (*_SHARED, "ja", "genau", "jawohl", "alles klar", "klar", "stimmt", "verstehe", "ich verstehe",
         "gut", "richtig", "aha", "achso", "ach so"),
        frozenset({"warten", "warte", "moment", "stopp", "stop", "nein", "halt", "entschuldigung", "was"}),
    ),
    "it": ListeningWords(
        (*_SHARED, "sì", "si", "certo", "esatto", "capisco", "va bene", "d'accordo", "ho capito", "giusto",
         "perfetto", "ah sì"),
        frozenset({"aspetta", "aspetti", "fermo", "ferma", "basta", "no", "scusi", "scusa", "cosa", "stop"}),
    ),
    "pt": ListeningWords(
        (*_SHARED, "sim", "claro", "certo", "entendi", "tá", "tá bom", "está bem", "exato", "isso",
         "pois é", "uhum", "ahã"),
        frozenset({"espera", "espere", "para", "pare", "não", "desculpa", "desculpe", "o quê", "stop"}),
    ),
    "nl": ListeningWords(
        (*_SHARED, "ja", "precies", "klopt", "juist", "oké", "prima", "ik snap het", "aha", "goed",
         "inderdaad"),
        frozenset({"wacht", "stop", "nee", "halt", "sorry", "pardon", "wat"}),
    ),
}  # fmt: skip

#: the languages with a table of their own (the others keep the English lists)
LANGUAGES = ("en", *sorted(_TABLES))

_ENGLISH = ListeningWords(BACKCHANNELS, STOP_WORDS)


def listening_words(language: str) -> ListeningWords:
    """The backchannels and stop words for a BCP 47 ``language`` ("es-MX" reads Spanish's)."""
    primary = language.lower().replace("_", "-").split("-", 1)[0]
    return _TABLES.get(primary, _ENGLISH)
