"""Cut a stream of LLM tokens into speakable units: the pieces of text handed to the TTS model.

Tokens ("Hel", "lo", ",", " there") are fed as the language model writes them. The first unit of
an answer is kept small so the first audio comes fast (a clause, or a few words once a short hold
expires); later units are whole sentences, for good prosody. Over-long sentences are cut at a
clause or word boundary, and a tail hold speaks the words already written when the model stalls.
A single word longer than ``max_unit_chars`` (a run of capitals or digits, a pasted blob) is cut
into pieces of at most that many characters, between grapheme clusters, as it arrives: no unit,
and no buffered word, grows with such a run.

The segmenter is sans-I/O, synchronous and deterministic: text and time (``now_s``, seconds of a
monotonic clock) come in as arguments and units pile up until ``units_ready()`` drains them. When
time does not advance, the units depend only on the text, never on how it was split into tokens.

Chinese and Japanese write no spaces: their marks (。！？ ，、；：) cut right after the mark and its
closing brackets wherever they stand, Arabic and Devanagari marks end clauses and sentences like
Latin ones, and a Spanish ¿ or ¡ stays with the words after it (``punctuation``).

It must never cut inside a word shorter than ``max_unit_chars`` (units are cut at whitespace, or
after a CJK mark),
never split "$3.50", "Dr. Smith", "e.g.", "10:30", "3.14", a URL or an email address of that
length, never cut inside a grapheme cluster that fits in a unit, never emit a unit longer than
``max_unit_chars``, an empty or a whitespace-only one, never hold more than ``max_buffer_chars``,
and never read a clock, sleep, start a thread or do I/O.
"""

from __future__ import annotations

import enum
import math
import re
from dataclasses import dataclass

from tts_service.engine.graphemes import cut_before
from tts_service.engine.punctuation import (
    ABBREVIATIONS,
    CLAUSE_ENDS,
    CLOSERS,
    EDGE_PUNCT,
    NUMBER_ABBREVIATIONS,
    SENTENCE_ENDS,
    is_clause_end,
    is_sentence_end,
    only_openers,
    wide_break,
)
from tts_service.errors import InvalidInputError, TextTooLongError

__all__ = ["ABBREVIATIONS", "CLAUSE_ENDS", "CLOSERS", "SENTENCE_ENDS", "Boundary", "Segmenter", "Unit"]

DASHES = "-–—"

_RUN = re.compile(r"\s+|\S+")
# The characters str.splitlines() breaks on that are whitespace: each starts a new paragraph.
_NEWLINE = re.compile("[\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")
# A word a spaced digit group may continue ("415", "+1", "(415)") and how the next group starts.
_OPEN_NUMBER = re.compile(r"\d\)?$")
# Inline tags (``reading.tags``) hold spaces: no timer cuts between their opening and closing.
_RANGE_START = re.compile(r"(?:\d|(?:\d|\b)[aApP]\.?[mM]\.?|\b(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)[a-z]*)$")
_WEEKDAY_COMMA = re.compile(r"^\(?(?:Mon|Tues?|Weds?|Thu(?:rs?)?|Fri|Sat|Sun)\.?,$")
_NAMES_A_NUMBER = re.compile(
    r"^(?:ID|PIN|OTP|[Cc]ode|[Pp]asscode|[Nn]umber|#|[Rr]ef|[Rr]eference|[Aa]ccount|[Ee]xt|EXT|[Ee]xtension|[Oo]rder"
    r"|[Cc]onfirmation|[Tt]racking|[Ii]nvoice|[Cc]ase|[Cc]laim|[Pp]olicy|[Tt]icket|[Pp]assword|PASSWORD):$"
)  # "Ext: 4021", "Password: Blue42!Sky": what follows stays with its name
_TAG_OPEN = re.compile(r"<(?:say-as|sub|phoneme|break)\b", re.IGNORECASE)
_TAG_CLOSE = re.compile(r"</(?:say-as|sub|phoneme)\s*>|/>", re.IGNORECASE)
_NUMBER_GOES_ON = "0123456789"


class Boundary(enum.Enum):
    """Why a unit ended (the next pause follows from it)."""

    SENTENCE = "sentence"  # . ! ? … (runs like ?! or ...), then closing quotes/brackets
    CLAUSE = "clause"  # , ; : or a free-standing dash: cuts the first unit, or an over-long sentence
    PARAGRAPH = "paragraph"  # a newline
    HOLD = "hold"  # a hold timer expired: the complete words were spoken without a boundary
    LENGTH = "length"  # the sentence passed max_unit_chars: cut at a clause or a space (or in a long word)
    FLUSH = "flush"  # flush() spoke what was left


@dataclass(frozen=True, slots=True)
class Unit:
    """One speakable unit: text as the tokens spelled it, stripped, never empty."""

    text: str
    index: int  # 0-based within the turn
    boundary: Boundary
    #: after the reading stage: each written token and how many words of ``text`` it became
    written: tuple[tuple[str, int], ...] = ()


class Segmenter:
    """Token stream in, speakable units out; one instance per session, ``reset()`` per turn.

    Call ``feed()`` with each token, ``poll()`` when ``next_deadline_s()`` passes, ``flush()`` when
    the answer ends, and drain ``units_ready()`` after each of them.

    ``first_unit_hold_s`` and ``first_unit_min_words``: the first unit of an answer is spoken once
    that many complete words wait and that long has passed since the answer's first feed.
    ``tail_hold_s``: complete words are spoken once no token has come for that long (``math.inf``
    disables a hold). ``max_unit_chars``: longer sentences are cut at a clause or a space, longer
    words between grapheme clusters.
    ``max_buffer_chars``: ``feed()`` refuses text beyond it.
    """

    # Positions are character offsets counted from the start of the current answer. The pending
    # text (not yet in a unit) starts at ``_base`` with a non-space character, or is empty.
    _chunks: list[str]
    _pending_len: int
    _base: int
    _end: int
    _cuts: list[tuple[int, bool]]  # (offset of the space after a complete word, is a clause end)
    _sentence_at: int | None  # a possible sentence end waiting for the next non-space character
    _after_space: bool
    _after_wide: bool  # the word so far ends in a CJK mark (and closers): the next letter cuts
    _line_start: bool
    _word: list[str]
    _word_start: int
    _word_at_line_start: bool
    _answer_units: int
    _open_number_at: int | None  # the cut after a number that the next word may continue
    _number_follows: bool  # the undecided sentence end is "ext.", "Dec.": a digit next goes on
    _in_numbers: set[int]  # cuts inside a spaced number or an inline tag: no timer cuts there
    _in_tag: bool
    _ranged: bool  # the last word can start a range ("8", "9am", "Tue")
    _first_feed_s: float | None
    _last_feed_s: float | None

    def __init__(
        self,
        *,
        first_unit_hold_s: float = 0.15,
        first_unit_min_words: int = 3,
        tail_hold_s: float = 0.6,
        max_unit_chars: int = 280,
        max_buffer_chars: int = 100_000,
    ) -> None:
        for name, hold in (("first_unit_hold_s", first_unit_hold_s), ("tail_hold_s", tail_hold_s)):
            if math.isnan(hold) or hold < 0:
                raise InvalidInputError(f"{name} must be >= 0 seconds (math.inf disables it), not {hold!r}")
        for name, count in (
            ("first_unit_min_words", first_unit_min_words),
            ("max_unit_chars", max_unit_chars),
            ("max_buffer_chars", max_buffer_chars),
        ):
            if count < 1:
                raise InvalidInputError(f"{name} must be a positive integer, not {count!r}")
        self._first_unit_hold_s = first_unit_hold_s
        self._first_unit_min_words = first_unit_min_words
        self._tail_hold_s = tail_hold_s
        self._max_unit_chars = max_unit_chars
        self._max_buffer_chars = max_buffer_chars
        self._ready: list[Unit] = []
        self._next_index = 0
        self._new_answer()

    # -- public verbs -------------------------------------------------------------------------

    def feed(self, text: str, now_s: float) -> None:
        """Append ``text``; units may become ready (drain them with ``units_ready()``).

        Raises TextTooLongError, appending nothing, when the buffer would exceed max_buffer_chars.
        """
        if not text:
            return
        if self._pending_len + len(text) > self._max_buffer_chars:
            raise TextTooLongError(
                f"{self._pending_len} buffered characters plus {len(text)} more exceed the limit of "
                f"{self._max_buffer_chars}"
            )
        if self._first_feed_s is None:
            self._first_feed_s = now_s
        self._last_feed_s = now_s
        start = self._end
        for match in _RUN.finditer(text):
            run = match.group()
            if run[0].isspace():
                self._on_space(run, start + match.start())
            else:
                self._on_word_piece(run, start + match.start())
        self._end = start + len(text)
        self._fire_holds(now_s)

    def poll(self, now_s: float) -> None:
        """Let the hold timers fire; call it once ``next_deadline_s()`` has passed."""
        self._fire_holds(now_s)

    def flush(self) -> None:
        """The answer ended: what is left becomes units, the last with FLUSH.

        The next feed starts a new answer (first-unit rules apply again); unit indexes keep
        counting until ``reset()``.
        """
        # Everything left is at most one unit: every boundary before it has already been cut, and
        # an undecided sentence end is followed only by whitespace.
        if self._chunks:
            self._cut_all(Boundary.FLUSH)
        self._new_answer()

    def cut_words(self) -> bool:
        """Speak the complete words held now as one unit; returns whether one was made.

        For a listener about to run dry: better a unit cut at a word than a gap in the audio.
        The unit ends as SENTENCE when its last word is an undecided sentence end, else HOLD.
        """
        cuts = self._hold_cuts()
        if not cuts:
            return False
        at = cuts[-1][0]
        self._cut_at(at, Boundary.SENTENCE if self._sentence_at == at else Boundary.HOLD)
        return True

    def units_ready(self) -> list[Unit]:
        """Return the units ready so far, oldest first, and forget them."""
        ready, self._ready = self._ready, []
        return ready

    def next_deadline_s(self) -> float | None:
        """The earliest ``now_s`` at which ``poll()`` could emit a unit by a timer, or None."""
        deadline = self._hold_deadline_s()
        return None if deadline is None or math.isinf(deadline) else deadline

    def reset(self) -> None:
        """Start a new turn: forget the buffer, ready units and timers; indexes restart at 0."""
        self._ready = []
        self._next_index = 0
        self._new_answer()

    @property
    def buffered_chars(self) -> int:
        """Characters held and not yet in a unit (leading whitespace is not held)."""
        return self._pending_len

    @property
    def complete_words(self) -> int:
        """Complete words held (each followed by whitespace): what ``cut_words()`` would speak."""
        return len(self._cuts)

    @property
    def units_emitted(self) -> int:
        """Units made ready this turn, drained or not (the index of the next unit)."""
        return self._next_index

    # -- scanning -----------------------------------------------------------------------------

    def _new_answer(self) -> None:
        self._chunks = []
        self._pending_len = 0
        self._base = 0
        self._end = 0
        self._cuts = []
        self._sentence_at = None
        self._after_space = True
        self._after_wide = False
        self._line_start = True
        self._word = []
        self._word_start = 0
        self._word_at_line_start = True
        self._answer_units = 0
        self._open_number_at = None
        self._number_follows = False
        self._in_numbers = set()
        self._in_tag = False
        self._ranged = False
        self._first_feed_s = None
        self._last_feed_s = None

    def _append(self, piece: str, at: int) -> None:
        if not self._chunks:
            self._base = at
        self._chunks.append(piece)
        self._pending_len += len(piece)

    def _on_space(self, run: str, at: int) -> None:
        # Every decision is taken at one character (the first space after a word, a newline, the
        # first letter of a word) from the text before it, so token splits cannot change it.
        newline = _NEWLINE.search(run)
        self._after_wide = False
        if not self._after_space:
            self._after_space = True
            self._end_word(at, newline_next=newline is not None and newline.start() == 0)
        if newline is not None:
            self._line_start = True
            if self._chunks:
                self._cut_all(Boundary.PARAGRAPH)
        elif self._chunks:
            self._append(run, at)

    def _on_word_piece(self, piece: str, at: int) -> None:
        # A CJK mark ends its word where it stands, spaces or not: the text after it (and its
        # closers) starts a new word, as if a space stood there.
        split, self._after_wide = wide_break(piece, self._after_wide)
        while split is not None:
            if split:
                self._take_piece(piece[:split], at)
            self._after_space = True
            self._end_word(at + split, newline_next=False)
            piece, at = piece[split:], at + split
            split, self._after_wide = wide_break(piece, False)
        self._take_piece(piece, at)

    def _take_piece(self, piece: str, at: int) -> None:
        if self._after_space:
            self._after_space = False
            if self._sentence_at is not None:
                if piece[0].islower() or (
                    (piece[0].isdigit() or piece[0] in "$€£¥") and self._number_follows
                ):
                    self._sentence_at = None  # "e.g. for", "Hello. world"
                else:
                    self._cut_all(Boundary.SENTENCE)
            self._word_start = at
            if self._open_number_at is not None and piece[0] in _NUMBER_GOES_ON:
                # "415 555 0188", "0800 123 456": one number in spaced groups; never cut inside it
                self._in_numbers.add(self._open_number_at)
            self._open_number_at = None
            self._word_at_line_start = self._line_start
            self._line_start = False
        self._word.append(piece)
        self._append(piece, at)
        while self._pending_len > self._max_unit_chars and self._cuts:
            self._cut_at(self._length_cut(), Boundary.LENGTH)
        while self._pending_len > self._max_unit_chars:
            self._cut_word()

    def _end_word(self, at: int, *, newline_next: bool) -> None:
        word = self._word[0] if len(self._word) == 1 else "".join(self._word)
        self._word = []
        if newline_next:
            return  # the newline cuts right here, as PARAGRAPH
        if only_openers(word):
            return  # "¿ Qué": the mark goes with the word after it, no cut between them
        if self._pending_len > self._max_unit_chars:
            # No earlier word to cut at: a single word longer than the limit, complete at last.
            self._cut_all(Boundary.LENGTH)
            return
        # A dash that opens the unit is a list bullet ("- item"), not a pause; one after a number
        # or a time is a range ("9am - 5pm"), read as "to".
        dash = not word.strip(DASHES) and self._base != self._word_start and not self._ranged
        self._ranged = _RANGE_START.search(word) is not None
        clause = is_clause_end(word) or dash
        # "Wed, Mar 12": the date goes with its day; "ID: 845 2231 9907": the number with its name
        dated = _WEEKDAY_COMMA.search(word) is not None or _NAMES_A_NUMBER.search(word) is not None
        if clause and self._answer_units == 0 and not dated:
            self._cut_all(Boundary.CLAUSE)
            return
        self._cuts.append((at, clause))
        if dated:
            self._in_numbers.add(at)
        self._open_number_at = at if _OPEN_NUMBER.search(word) else None
        if "<" in word or ">" in word:
            opened = max((m.end() for m in _TAG_OPEN.finditer(word)), default=-1)
            closed = max((m.end() for m in _TAG_CLOSE.finditer(word)), default=-1)
            if opened >= 0 or closed >= 0:
                self._in_tag = opened > closed
        if self._in_tag:
            self._in_numbers.add(at)
        if is_sentence_end(word, at_line_start=self._word_at_line_start):
            self._sentence_at = at
            last = re.split(r"[-–—]", EDGE_PUNCT.sub("", word.rstrip(".")))[-1]  # "Mon.–Fri. 8–6"
            self._number_follows = last.lower() in NUMBER_ABBREVIATIONS

    def _length_cut(self) -> int:
        # Every recorded cut lies within max_unit_chars of _base: the loop in _on_word_piece cuts as
        # soon as the pending text passes the limit.
        for at, clause in reversed(self._cuts):
            if clause:
                return at
        return self._cuts[-1][0]

    # -- holds --------------------------------------------------------------------------------

    def _hold_cuts(self) -> list[tuple[int, bool]]:
        """The cuts a timer may take: not the one after a number the next token may continue."""
        skip = self._in_numbers
        return [cut for cut in self._cuts if cut[0] not in skip and cut[0] != self._open_number_at]

    def _hold_deadline_s(self) -> float | None:
        if not self._hold_cuts() or self._last_feed_s is None:
            return None
        deadline = self._last_feed_s + self._tail_hold_s
        if (
            self._answer_units == 0
            and self._first_feed_s is not None
            and len(self._hold_cuts()) >= self._first_unit_min_words
        ):
            deadline = min(deadline, self._first_feed_s + self._first_unit_hold_s)
        return deadline

    def _fire_holds(self, now_s: float) -> None:
        # Compared as deadlines, not as elapsed times, so poll(next_deadline_s()) always fires.
        deadline = self._hold_deadline_s()
        if deadline is not None and now_s >= deadline:
            self._cut_at(self._hold_cuts()[-1][0], Boundary.HOLD)

    # -- cutting ------------------------------------------------------------------------------

    def _cut_all(self, boundary: Boundary) -> None:
        text = "".join(self._chunks)
        self._chunks = []
        self._pending_len = 0
        self._cuts = []
        self._sentence_at = None
        self._emit(text, boundary)

    def _cut_at(self, at: int, boundary: Boundary) -> None:
        pending = "".join(self._chunks)
        split = at - self._base
        rest = pending[split:]
        kept = rest.lstrip()
        self._base = at + len(rest) - len(kept)
        self._chunks = [kept] if kept else []
        self._pending_len = len(kept)
        self._cuts = [cut for cut in self._cuts if cut[0] > at]
        if self._sentence_at is not None and self._sentence_at <= at:
            self._sentence_at = None
        self._emit(pending[:split], boundary)

    def _cut_word(self) -> None:
        # No complete word is held (each has a cut): what is pending is one word, longer than a
        # unit. Its first piece goes; the cut depends only on the text up to the character after
        # it, which is held, so token splits cannot move it.
        pending = "".join(self._chunks)
        split = cut_before(pending, self._max_unit_chars)
        rest = pending[split:]
        self._base += split
        self._chunks = [rest]
        self._pending_len = len(rest)
        self._word = [rest]
        self._word_start = self._base
        self._word_at_line_start = False
        self._emit(pending[:split], Boundary.LENGTH)

    def _emit(self, text: str, boundary: Boundary) -> None:
        text = text.strip()
        if text:
            self._ready.append(Unit(text, self._next_index, boundary))
            self._next_index += 1
            self._answer_units += 1
