"""Tests for tts_service.engine.textclean: token hygiene and markdown/emoji stripping before synthesis."""

from __future__ import annotations

import sys
import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tts_service.engine import textclean
from tts_service.engine.textclean import clean_for_speech, has_speakable, sanitize

EMOJI = [
    "😀",
    "🎉",
    "👍🏽",
    "❤️",
    "🇺🇸",
    "1️⃣",
    "#️⃣",
    "👨\u200d👩\u200d👧",
    "✅",
    "⭐",
    "🏴\U000e0067\U000e0062\U000e007f",
]
MUST_SURVIVE = [
    "$3.50",
    "Dr. Smith",
    "e.g.",
    "10:30",
    "3.14",
    "1,000",
    "C++",
    "https://example.com/a_b?x=1",
    "jane.doe@example.com",
    "it's",
    "rock-and-roll",
    "50%",
    "#1",
    "A&B",
    "snake_case_name",
    "2 * 3",
    "20°C",
    "£5 or €5",
    "x = 2 + 2",
    "@home",
    "~5 minutes",
    "2**3",
    "a*b",
]

# --- sanitize -------------------------------------------------------------------------------------


def test_sanitize_drops_invisible_and_broken_characters() -> None:
    """NUL, controls, zero-width and bidi marks, BOM, U+FFFD and lone surrogates are dropped."""
    dirty = "a\x00b\x07c\u200bd\u200de\u200ff\u202eg\ufeffh\ufffdi\ud800j\udfffk\x7fl\x9bm\u00adn"
    assert sanitize(dirty) == "abcdefghijklmn"


def test_sanitize_maps_word_separating_controls_to_space() -> None:
    """Tab, CR, VT, FF and NEL become spaces so the words they separated stay apart."""
    assert sanitize("a\tb\rc\x0bd\x0ce\x85f") == "a b c d e f"


def test_sanitize_crlf_keeps_one_line_break() -> None:
    """CRLF becomes " \\n": one line break, never two, and a lone CR still separates words."""
    assert sanitize("one\r\ntwo\rthree") == "one \ntwo three"


def test_sanitize_keeps_newlines_and_ordinary_text() -> None:
    """Newlines, accents, CJK, emoji and symbols pass through untouched."""
    text = "Café naïve 東京\n$3.50 😀 ° € —"
    assert sanitize(text) == text


def test_sanitize_format_ranges_match_unicodedata() -> None:
    """The hard-coded Cf ranges hold this Python's category Cf (fails if Unicode adds some), and any
    more are code points this Python's Unicode has not assigned yet (newer Pythons' Cf)."""
    hardcoded = {c for first, last in textclean._FORMAT_RANGES for c in range(first, last + 1)}
    derived = {c for c in range(sys.maxunicode + 1) if unicodedata.category(chr(c)) == "Cf"}
    assert derived <= hardcoded
    assert {unicodedata.category(chr(c)) for c in hardcoded - derived} <= {"Cn"}


@pytest.mark.parametrize("category", ["Cc", "Cf", "Cs"])
def test_sanitize_removes_whole_categories(category: str) -> None:
    """No character of categories Cc (except newline), Cf or Cs survives sanitize."""
    chars = "".join(
        chr(c)
        for c in range(sys.maxunicode + 1)
        if unicodedata.category(chr(c)) == category and chr(c) != "\n"
    )
    assert all(unicodedata.category(c) != category for c in sanitize(chars).replace(" ", ""))


@given(st.text(), st.text())
@settings(max_examples=500)
def test_sanitize_commutes_with_concatenation(a: str, b: str) -> None:
    """sanitize(a + b) == sanitize(a) + sanitize(b) for arbitrary unicode."""
    assert sanitize(a + b) == sanitize(a) + sanitize(b)


_surrogate_heavy = st.text(
    alphabet=st.one_of(
        st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF),
        st.sampled_from(["\r", "\n", "\t", "\x00", "\u200d", "\ufeff", "\ufffd", "a", "😀", " "]),
        st.characters(),
    )
)


@given(_surrogate_heavy, _surrogate_heavy)
@settings(max_examples=500)
def test_sanitize_commutes_with_concatenation_around_surrogates_and_crlf(a: str, b: str) -> None:
    """The concat law holds for lone surrogates and for a CRLF split between two tokens."""
    assert sanitize(a + b) == sanitize(a) + sanitize(b)
    assert sanitize(sanitize(a)) == sanitize(a)


def test_sanitize_crlf_split_across_tokens() -> None:
    """A CRLF split across two tokens cleans the same as when it arrives whole."""
    assert sanitize("end\r") + sanitize("\nnext") == sanitize("end\r\nnext")


# --- clean_for_speech: what must survive ----------------------------------------------------------


@pytest.mark.parametrize("text", MUST_SURVIVE)
def test_clean_keeps_read_text_intact(text: str) -> None:
    """Prices, abbreviations, times, numbers, URLs, e-mails and read symbols are not damaged."""
    assert clean_for_speech(text) == text
    assert clean_for_speech(f"Note {text} here.") == f"Note {text} here."


def test_clean_keeps_plain_sentence() -> None:
    """An ordinary sentence comes back unchanged."""
    text = "Sure! Your order ships Tuesday, and it costs $12.99 (tax included)."
    assert clean_for_speech(text) == text


# --- clean_for_speech: markdown -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("**bold** text", "bold text"),
        ("__bold__ text", "bold text"),
        ("an *emphasised* word", "an emphasised word"),
        ("an _emphasised_ word", "an emphasised word"),
        ("***both*** ways", "both ways"),
        ("**bold with _nested em_**", "bold with nested em"),
        ("~~struck~~ text", "struck text"),
        ("**Note:** read this", "Note: read this"),
        ("(*aside*)", "(aside)"),
        ("I *really* think 2 * 3 = 6", "I really think 2 * 3 = 6"),
        ("keep snake_case_name but _drop_ this", "keep snake_case_name but drop this"),
    ],
)
def test_clean_strips_emphasis(text: str, expected: str) -> None:
    """Bold, italic and strikethrough markers go; their words stay."""
    assert clean_for_speech(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("**Note, this is", "Note, this is"),
        ("important**.", "important."),
        ("*half", "half"),
        ("~~gone", "gone"),
        ("tail_", "tail"),
    ],
)
def test_clean_strips_markers_of_spans_split_across_units(text: str, expected: str) -> None:
    """A marker whose partner sits in the previous or next unit is still removed."""
    assert clean_for_speech(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Run `pip install warmline` first", "Run pip install warmline first"),
        ("use ``a ` b`` here", "use a b here"),
        ("call `snake_case()` now", "call snake_case() now"),
        ("pass `*args` along", "pass args along"),
        ("**`code`**", "code"),
    ],
)
def test_clean_keeps_inline_code_content(text: str, expected: str) -> None:
    """Inline code loses its backticks and keeps its content, cleaned like any other text."""
    assert clean_for_speech(text) == expected


@pytest.mark.parametrize("line", ["```", "```python", "  ```bash", "~~~", "> ```"])
def test_clean_drops_fence_lines(line: str) -> None:
    """A unit that is only a code fence line is dropped entirely."""
    assert clean_for_speech(line) == ""


def test_clean_drops_fenced_block_inside_one_unit() -> None:
    """A complete fenced block within a multi-line unit disappears with its contents."""
    text = "Here is how:\n```python\nprint('hi')\nx = 1\n```\nThat's all."
    assert clean_for_speech(text) == "Here is how: That's all."


def test_clean_drops_unclosed_fence_to_end_of_unit() -> None:
    """An opening fence without its closer in the same unit drops the rest of that unit."""
    assert clean_for_speech("Try this:\n```\nrm -rf build") == "Try this:"


def test_clean_drops_fence_marker_on_prose_line() -> None:
    """A fence opener trailing prose takes its info string with it."""
    assert clean_for_speech("Run this: ```bash") == "Run this:"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("# Title", "Title"),
        ("###### Deep title", "Deep title"),
        ("## Closed title ##", "Closed title"),
        ("> quoted words", "quoted words"),
        ("> > nested quote", "nested quote"),
        ("- item one", "item one"),
        ("* item two", "item two"),
        ("+ item three", "item three"),
        ("  - nested item", "nested item"),
        ("• bullet", "bullet"),
        ("- [x] done task", "done task"),
        ("1. First step", "First step"),
        ("12) Twelfth step", "Twelfth step"),
        ("> - 1. all at once", "all at once"),
    ],
)
def test_clean_strips_line_start_markers(text: str, expected: str) -> None:
    """Headers, blockquotes, bullets, task boxes and numbered markers at line start are removed."""
    assert clean_for_speech(text) == expected


@pytest.mark.parametrize("text", ["#hashtag", "3.14 is pi", "-7 degrees", "2024. What a year"])
def test_clean_leaves_lookalikes_of_line_markers(text: str) -> None:
    """Text that merely starts like a marker (no space, decimal, negative, year) is kept."""
    assert clean_for_speech(text) == text


@pytest.mark.parametrize(
    "text", ["---", "***", "___", "- - -", "|---|---|", "| :--- | ---: |", "+---+---+", "==="]
)
def test_clean_drops_rules_and_table_separators(text: str) -> None:
    """Horizontal rules, table separator rows and grid borders are not read."""
    assert clean_for_speech(text) == ""


def test_clean_reads_table_row_as_list() -> None:
    """Table pipes go; cells are separated by commas for the pause a column gap gave."""
    assert clean_for_speech("| Name | Age | City |") == "Name, Age, City"
    assert clean_for_speech("| Plan | $10 |  |") == "Plan, $10"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("See [the docs](https://example.com/docs) now", "See the docs now"),
        ("[**Bold link**](x.html)", "Bold link"),
        ("![a cat](cat.png) Look", "Look"),
        ("Go to <https://example.com>", "Go to https://example.com"),
        ("Read [the guide][1] first", "Read the guide first"),
        ("A claim[^1] here", "A claim here"),
    ],
)
def test_clean_handles_links_and_images(text: str, expected: str) -> None:
    """Links keep their text, images vanish, autolinks lose their angle brackets."""
    assert clean_for_speech(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("line<br>break", "line break"),
        ("<b>Hi</b>!", "Hi!"),
        ('<span class="x">styled</span> text', "styled text"),
        ("a <!-- note --> b", "a b"),
        ("x < y and y > z", "x < y and y > z"),
        ("Fish &amp; chips &lt;3", "Fish & chips <3"),
    ],
)
def test_clean_handles_html(text: str, expected: str) -> None:
    """Tags go (a space where they split words), comparisons stay, entities are decoded."""
    assert clean_for_speech(text) == expected


# --- clean_for_speech: emoji, speaker tags, whitespace --------------------------------------------


@pytest.mark.parametrize("emoji", EMOJI)
def test_clean_drops_emoji(emoji: str) -> None:
    """Emoji, flags, keycaps, skin tones and ZWJ sequences are dropped without trace."""
    assert clean_for_speech(f"Great {emoji} job{emoji}!") == "Great job!"


def test_clean_returns_empty_for_emoji_only() -> None:
    """A unit of only emoji has nothing to say."""
    assert clean_for_speech(" ".join(EMOJI)) == ""


def test_clean_emoji_between_words_leaves_a_space() -> None:
    """An emoji glued between two words does not fuse them."""
    assert clean_for_speech("great👍thanks") == "great thanks"


def test_clean_keeps_read_symbols_near_emoji() -> None:
    """Degree, currency, copyright and trademark signs are not emoji."""
    assert clean_for_speech("It's 20°C ☀️ and £5 © ™") == "It's 20°C and £5 © ™"


def test_clean_removes_speaker_tags_by_default() -> None:
    """[S1]-style tags are removed unless asked to keep them."""
    assert clean_for_speech("[S1] Hello there. [S2] Hi!") == "Hello there. Hi!"
    assert clean_for_speech("[S12]Hello") == "Hello"


def test_clean_keeps_speaker_tags_on_request() -> None:
    """keep_speaker_tags keeps the tags, but a tag alone is still not speakable."""
    assert clean_for_speech("[S1] **Hello** 😀", keep_speaker_tags=True) == "[S1] Hello"
    assert clean_for_speech("[S1] 😀", keep_speaker_tags=True) == ""
    assert clean_for_speech("[S1][S2] *Hi*", keep_speaker_tags=True) == "[S1][S2] Hi"


def test_clean_collapses_whitespace() -> None:
    """Runs of spaces, tabs and newlines become one space; ends are stripped."""
    assert clean_for_speech("  one\t\ttwo\n\nthree \r\n ") == "one two three"


@pytest.mark.parametrize(
    "text", ["", "   ", "...", "**", "---", "```", "😀🎉", "[S1]", "<br>", "![x](y.png)"]
)
def test_clean_returns_empty_when_nothing_speakable(text: str) -> None:
    """No letter or digit left means "" and has_speakable False."""
    assert clean_for_speech(text) == ""
    assert not has_speakable(text)


def test_clean_sanitizes_its_input() -> None:
    """Control and format characters are removed even if sanitize was not applied first."""
    assert clean_for_speech("zero\u200bwidth\x00 \ud800text") == "zerowidth text"


def test_has_speakable_true_for_letters_or_digits() -> None:
    """One letter or digit, in any script, is speakable."""
    assert has_speakable("**OK**")
    assert has_speakable("42")
    assert has_speakable("東京")
    assert not has_speakable("👍 !!")


# --- properties -----------------------------------------------------------------------------------

_WORDS = st.text(alphabet="abcdefghijklmnopqrstuvwxyzABCXYZ", min_size=1, max_size=8)
_EMPHASIS = st.sampled_from(["*", "**", "***", "_", "__", "~~", "`"])


@st.composite
def _markdown_lines(draw: st.DrawFn) -> str:
    """A line of LLM-style markdown: optional block prefix, words wrapped in emphasis, emoji, links."""
    parts: list[str] = []
    for _ in range(draw(st.integers(1, 6))):
        word = draw(_WORDS)
        kind = draw(st.integers(0, 5))
        if kind == 1:
            marker = draw(_EMPHASIS)
            closing = draw(st.sampled_from([marker, ""]))  # sometimes the closer is in another unit
            word = marker + word + closing
        elif kind == 2:
            word += draw(st.sampled_from(EMOJI))
        elif kind == 3:
            word = f"[{word}](https://example.com/{word})"
        elif kind == 4:
            word = draw(st.sampled_from(EMOJI)) + " " + word
        parts.append(word)
    prefix = draw(st.sampled_from(["", "# ", "## ", "> ", "- ", "* ", "+ ", "1. ", "| ", "[S1] "]))
    suffix = draw(st.sampled_from(["", ".", "!", " |", "**", "_"]))
    return prefix + " ".join(parts) + suffix


def _has_emoji(text: str) -> bool:
    return textclean._EMOJI_RE.search(text) is not None


@given(_markdown_lines())
@settings(max_examples=400)
def test_clean_output_has_no_markers_or_emoji(line: str) -> None:
    """Generated markdown lines lose every emphasis marker, backtick, bracket and emoji."""
    out = clean_for_speech(line)
    assert not _has_emoji(out)
    assert not any(marker in out for marker in "*_~`[]|#>")
    assert out == out.strip() and "  " not in out
    assert clean_for_speech(out) == out


@given(st.text())
@settings(max_examples=500)
def test_clean_never_raises_and_never_returns_emoji(text: str) -> None:
    """Arbitrary unicode (lone surrogates included) cleans without error, emoji and controls."""
    out = clean_for_speech(text)
    assert not _has_emoji(out)
    assert out == sanitize(out)
    assert "**" not in out or all(c.isdigit() or c.isspace() or c == "*" for c in _around(out, "**"))
    assert has_speakable(text) == bool(out)


def _around(text: str, marker: str) -> str:
    """The characters right before and after each occurrence of ``marker``."""
    found = []
    start = text.find(marker)
    while start != -1:
        end = start + len(marker)
        found.append(text[start - 1 : start] + text[end : end + 1])
        start = text.find(marker, end)
    return "".join(found)
