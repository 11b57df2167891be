"""Text hygiene between the LLM and the voice: what must never reach a model, and what must never be read.

Two layers, applied at different points of the pipeline:

- ``sanitize`` runs on every incoming token. It is a pure per-character mapping, so it commutes with
  concatenation (``sanitize(a + b) == sanitize(a) + sanitize(b)``) and can run before segmentation
  without caring where tokens were split.
- ``clean_for_speech`` runs on one speakable unit (a clause, a sentence or one line of markdown) just
  before synthesis. It strips markdown syntax, emoji and speaker tags and collapses whitespace, while
  keeping everything a listener should hear ("$3.50", "C++", "snake_case_name", URLs, "2 * 3").

It is stateless: a unit is cleaned without knowing its neighbours, so a line *inside* a fenced code
block that arrives on its own looks like prose. Tracking fences across lines is the segmenter's job.

This module must never do I/O, keep state between calls, or import anything beyond the standard
library; it must never raise on any ``str`` input, including lone surrogates.
"""

from __future__ import annotations

import html
import re

__all__ = ["clean_for_speech", "has_speakable", "sanitize"]

# --- sanitize -------------------------------------------------------------------------------------

# Unicode format characters (category Cf) as of Unicode 15.1 (Python 3.13; 3.11 has Unicode 14, where
# U+13439..U+1343F are unassigned, so dropping them there loses nothing). Hard-coded instead of scanned
# from unicodedata at import (a 0.1 s scan); a test re-derives the list and fails if it goes stale.
_FORMAT_RANGES: tuple[tuple[int, int], ...] = (
    (0x00AD, 0x00AD), (0x0600, 0x0605), (0x061C, 0x061C), (0x06DD, 0x06DD), (0x070F, 0x070F),
    (0x0890, 0x0891), (0x08E2, 0x08E2), (0x180E, 0x180E), (0x200B, 0x200F), (0x202A, 0x202E),
    (0x2060, 0x2064), (0x2066, 0x206F), (0xFEFF, 0xFEFF), (0xFFF9, 0xFFFB), (0x110BD, 0x110BD),
    (0x110CD, 0x110CD), (0x13430, 0x1343F), (0x1BCA0, 0x1BCA3), (0x1D173, 0x1D17A), (0xE0001, 0xE0001),
    (0xE0020, 0xE007F),
)  # fmt: skip

# Control characters that separate words: mapping them to a space (rather than dropping them) keeps
# "a\tb" from becoming "ab". "\r" is one of them: CRLF becomes " \n", whose extra space the whitespace
# collapse in clean_for_speech absorbs, and a lone CR (old Mac line ends) still separates words. Mapping
# "\r" to "\n" instead would turn every CRLF into a blank line, which a segmenter may take as a
# paragraph break.
_SPACE_CONTROLS = "\t\r\x0b\x0c\x1c\x1d\x1e\x1f\x85"


def _build_sanitize_table() -> dict[int, str | None]:
    table: dict[int, str | None] = {}
    for code in [*range(0x00, 0x20), *range(0x7F, 0xA0)]:  # category Cc
        table[code] = None
    for code in range(0xD800, 0xE000):  # lone surrogates (category Cs), left behind by bad decodes
        table[code] = None
    for first, last in _FORMAT_RANGES:
        for code in range(first, last + 1):
            table[code] = None
    for char in _SPACE_CONTROLS:
        table[ord(char)] = " "
    del table[ord("\n")]  # line ends carry markdown structure for clean_for_speech
    table[0xFFFD] = None  # the replacement character is a decode error, never text
    return table


_SANITIZE_TABLE = _build_sanitize_table()


def sanitize(text: str) -> str:
    """Drop characters no model should see and turn word-separating controls into spaces.

    A fixed per-character mapping, so ``sanitize(a + b) == sanitize(a) + sanitize(b)`` for all strings
    and it is safe on arbitrary token boundaries:

    - dropped: NUL and every other control character (Cc) except the ones below, lone surrogates,
      format characters (Cf: zero-width space and joiners, BOM, bidi marks, soft hyphen, tag
      characters) and U+FFFD;
    - mapped to a space: "\\t", "\\r", "\\v", "\\f", U+001C..U+001F and NEL (U+0085);
    - kept: "\\n" and everything else.
    """
    return text.translate(_SANITIZE_TABLE)


# --- clean_for_speech -----------------------------------------------------------------------------

# Pictographs and emoji parts. Whole blocks where nothing in them is read aloud (emoji, dingbats,
# geometric shapes, misc symbols and arrows), the scattered emoji in Misc Technical and CJK symbols, and
# the glue of emoji sequences: variation selectors, the combining keycap, skin tones (inside the
# 1F000 block), ZWJ and tag characters (both also dropped by sanitize). Ordinary read symbols
# ($ £ € % & @ + = # ° © ™ arrows) are deliberately outside these ranges.
_EMOJI_CLASS = (
    "[\U0001f000-\U0001faff\u2600-\u27bf\u2b00-\u2bff\u25a0-\u25ff"
    "\u231a\u231b\u2328\u23cf\u23e9-\u23f3\u23f8-\u23fa\u3030\u303d\u3297\u3299"
    "\u20e3\ufe00-\ufe0f\U000e0100-\U000e01ef\U000e0020-\U000e007f\u200d]"
)
# A keycap ("1️⃣", "#️⃣") or a text symbol forced into emoji presentation ("©️", "‼️", "↔️"): the base
# character goes with the selector. Digits and letters followed by a stray FE0F are kept.
_EMOJI_RE = re.compile(rf"(?:[0-9#*]\ufe0f?\u20e3|[^\w\s]\ufe0f|{_EMOJI_CLASS})+")

_SPEAKER_TAG_RE = re.compile(r"\[S\d+\]")
_ENTITY_RE = re.compile(r"&(?:#\d{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});")
_FENCE_RE = re.compile(r"^\s{0,3}(?:>\s*)*(?:`{3,}|~{3,})")

# URLs and e-mails hide behind placeholders while emphasis is stripped ("example.com/_a_" keeps its
# underscores). A placeholder is a NUL-delimited index: NUL cannot survive sanitize, which runs first,
# so the input cannot forge one, and no rule below matches NUL.
_PLACEHOLDER_RE = re.compile(r"\x00(\d+)\x00")
_CODE_SPAN_RE = re.compile(r"(?<!`)(`+)(?!`)(.+?)(?<!`)\1(?!`)")
_OPEN_FENCE_TAIL_RE = re.compile(r"`{3,}.*")
_IMAGE_RE = re.compile(r"!\[[^\]\n]*\]\([^)\n]*\)")
_LINK_RE = re.compile(r"\[([^\]\n]+)\]\([^)\n]*\)")
_REF_LINK_RE = re.compile(r"\[([^\]\n]+)\]\[[^\]\n]*\]")
_FOOTNOTE_RE = re.compile(r"\[\^[^\]\n]+\]")
_AUTOLINK_RE = re.compile(r"<((?:https?|ftp)://[^\s<>]+|mailto:[^\s<>]+|[\w.+-]+@[\w-]+(?:\.[\w-]+)+)>")
_URL_RE = re.compile(r"(?:(?:https?|ftp)://|\bwww\.)[^\s<>\"'`]*[^\s<>\"'`.,;:!?)\]]")
_EMAIL_RE = re.compile(r"\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_HTML_TAG_RE = re.compile(r"<!--.*?-->|</?[A-Za-z][A-Za-z0-9-]*(?:\s[^<>]*)?/?>")

_RULE_LINE_RE = re.compile(r"^[\s|:+=*_-]*$")  # horizontal rules, table separator rows, grid borders
_BLOCKQUOTE_RE = re.compile(r"^\s*(?:>\s*)*>(?:\s+|$)")
_HEADER_RE = re.compile(r"^\s{0,3}#{1,6}(?:\s+|$)")
_HEADER_CLOSE_RE = re.compile(r"\s+#+\s*$")
_BULLET_RE = re.compile(r"^\s*[-*+•‣⁃](?:\s+\[[ xX]\])?\s+")
# At most three digits: a unit that starts "2024. " is more likely a year that ended a sentence.
_NUMBERED_RE = re.compile(r"^\s*\d{1,3}[.)]\s+(?=\S)")

# Emphasis pairs. An opener must not follow a word character and a closer must not precede one, so
# snake_case_name and 2*3*4 are never treated as emphasis; "2 * 3" fails because a marker followed by
# a space cannot open.
_STAR_PAIR_RE = re.compile(r"(?<![\w*])(\*{1,3})(?=[^\s*])(.+?)(?<=[^\s*])\1(?![\w*])")
_UNDERSCORE_PAIR_RE = re.compile(r"(?<![\w_])(_{1,3})(?=[^\s_])(.+?)(?<=[^\s_])\1(?![\w_])")
_TILDE_PAIR_RE = re.compile(r"~~(?=\S)(.+?)(?<=\S)~~")
# Markers left unpaired because a unit boundary split the span ("**Note, this" / "matters**").
_STRAY_RE = re.compile(r"\*+|_+|~{2,}|`+")
_PHONE_KEY_RE = re.compile(r"\b(?:press|dial|hit|tap|enter)\s*$", re.IGNORECASE)
_ESCAPE_RE = re.compile(r"\\(?=[\\`*_{}\[\]()#+\-.!|~<>])")
_SPACE_RE = re.compile(r"\s+")
_SPEAKABLE_RE = re.compile(r"[^\W_]")  # a letter or a digit: exactly what str.isalnum() accepts


def clean_for_speech(text: str, *, keep_speaker_tags: bool = False) -> str:
    """Return ``text`` as it should be read aloud, or "" when nothing speakable remains.

    Strips markdown syntax (emphasis, inline code backticks, fenced code, headers, blockquotes, list
    markers, tables, rules, links, images, HTML tags), emoji and pictographs, and ``[S1]``-style
    speaker tags unless ``keep_speaker_tags``; collapses whitespace. Numbers, prices, URLs, e-mail
    addresses, abbreviations and read symbols are left for the spoken-form normalizer. The result is
    "" unless it has a letter or digit outside speaker tags.
    """
    protected: list[str] = []

    def protect(value: str) -> str:
        protected.append(value)
        return f"\x00{len(protected) - 1}\x00"

    text = sanitize(_ENTITY_RE.sub(lambda m: html.unescape(m.group()), text))
    # Kept tags hide from the link rules, which would read "[S1][S2]" as a reference link.
    text = _SPEAKER_TAG_RE.sub(lambda m: protect(m.group()) if keep_speaker_tags else " ", text)
    text = _drop_fenced_lines(text)
    text = _between_words_or_nothing(_EMOJI_RE, text)

    # Code spans lose their backticks but not the rest of the cleaning: read aloud, "`*args`" is
    # "args", and a listener cannot hear that a word was code. A fence marker left on a prose line
    # ("Run: ```bash") takes its info string with it.
    text = _CODE_SPAN_RE.sub(r"\2", text)
    text = _OPEN_FENCE_TAIL_RE.sub("", text)
    text = _IMAGE_RE.sub("", text)
    text = _LINK_RE.sub(r"\1", text)
    text = _REF_LINK_RE.sub(r"\1", text)
    text = _FOOTNOTE_RE.sub("", text)
    text = _AUTOLINK_RE.sub(r"\1", text)
    text = _URL_RE.sub(lambda m: protect(m.group()), text)
    text = _EMAIL_RE.sub(lambda m: protect(m.group()), text)
    text = _between_words_or_nothing(_HTML_TAG_RE, text)

    text = "\n".join(_clean_line(line) for line in text.split("\n"))

    for _ in range(3):  # nested emphasis ("***both***", "**bold _and em_**") unwraps one layer per pass
        before = text
        text = _TILDE_PAIR_RE.sub(r"\1", text)
        text = _STAR_PAIR_RE.sub(r"\2", text)
        text = _UNDERSCORE_PAIR_RE.sub(r"\2", text)
        if text == before:
            break
    text = _STRAY_RE.sub(_keep_or_drop_stray, text)
    text = _ESCAPE_RE.sub("", text)

    text = _PLACEHOLDER_RE.sub(lambda m: protected[int(m.group(1))], text)
    text = _SPACE_RE.sub(" ", text.replace("\x00", "")).strip()
    speakable = _SPEAKER_TAG_RE.sub("", text) if keep_speaker_tags else text
    return text if _SPEAKABLE_RE.search(speakable) else ""


def has_speakable(text: str) -> bool:
    """True when ``clean_for_speech(text)`` would keep at least one letter or digit."""
    return bool(clean_for_speech(text))


def _drop_fenced_lines(text: str) -> str:
    """Drop fence lines and, within this unit, every line between an opening and a closing fence."""
    if "```" not in text and "~~~" not in text:
        return text
    kept: list[str] = []
    in_fence = False
    for line in text.split("\n"):
        if _FENCE_RE.match(line):
            in_fence = not in_fence
        elif not in_fence:
            kept.append(line)
    return "\n".join(kept)


def _between_words_or_nothing(pattern: re.Pattern[str], text: str) -> str:
    """Delete ``pattern``'s matches, leaving a space where one sat between two word characters."""

    def replace(match: re.Match[str]) -> str:
        start, end = match.span()
        text = match.string
        if start > 0 and end < len(text) and text[start - 1].isalnum() and text[end].isalnum():
            return " "
        return ""

    return pattern.sub(replace, text)


def _clean_line(line: str) -> str:
    """Strip the block-level markdown that lives at the start of a line, and table pipes."""
    if _RULE_LINE_RE.match(line):
        return ""
    line = _BLOCKQUOTE_RE.sub("", line)
    header = _HEADER_RE.sub("", line, count=1)
    if header != line:
        line = _HEADER_CLOSE_RE.sub("", header)
    line = _BULLET_RE.sub("", line, count=1)
    line = _NUMBERED_RE.sub("", line, count=1)
    if "|" in line:
        line = _join_cells(line)
    return line


def _join_cells(line: str) -> str:
    """Read a table row as a list: "| Name | Age |" becomes "Name, Age"."""
    cells = [cell.strip() for cell in line.split("|")]
    out = ""
    for cell in cells:
        if not cell:
            continue
        if out:
            # A comma gives the listener the pause the column gap gave the reader, unless the cell
            # already ends in punctuation.
            out += " " if out[-1] in ".,;:!?" else ", "
        out += cell
    return out


def _keep_or_drop_stray(match: re.Match[str]) -> str:
    """Keep a leftover marker run only where it is arithmetic or an identifier, never markdown."""
    run = match.group()
    start, end = match.span()
    text = match.string
    before = text[start - 1] if start > 0 else ""
    after = text[end] if end < len(text) else ""
    marker = run[0]
    if marker == "*":
        if len(run) == 1 and not after.isalpha() and _PHONE_KEY_RE.search(text, 0, start):
            return run  # "Press *", "dial *67": the phone's star key
        if before.isspace() and after.isspace():  # "2 * 3", "2 ** 3", but not a lone "*" at an edge
            left, right = text[:start].rstrip(), text[end:].lstrip()
            return run if left[-1:].isalnum() and right[:1].isalnum() else ""
        if before.isdigit() and after.isdigit():  # "2*3", "2**3"
            return run
        if len(run) == 1 and before.isalnum() and after.isalnum():  # "a*b"
            return run
        return ""
    if marker == "_":
        if (before.isalnum() or before == "_") and (after.isalnum() or after == "_"):  # snake_case
            return run
        return ""
    return ""  # "~~" and backticks are never read
