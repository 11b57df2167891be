"""The reading stage: what each written token is, said that way; marks given back to the written tokens."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from toy_backends import ToneBackend

from tts_service.backends.hibari.backend import HibariBackend
from tts_service.engine.reading import read
from tts_service.engine.reading.lexicon import LexiconError, parse_lexicon
from tts_service.engine.reading.marks import WrittenMarks, to_written
from tts_service.engine.reading.preview import preview
from tts_service.engine.segmenter import Boundary, Segmenter, Unit
from tts_service.engine.speakable import SpeakableStage
from tts_service.engine.types import WordMark

# The examples of issue 31, each with the reading a person gives it.
READS = [
    ("Call 415-555-0188", "Call four one five, five five five, zero one eight eight"),
    ("Dial 0800 123 456", "Dial zero eight zero zero, one two three, four five six"),
    ("The PIN is 0091", "The Pin is zero zero nine one"),
    ("Your code is 4410-AZ", "Your code is four four one zero, A. Z"),
    ("Write to jane.doe@mail.org", "Write to jane dot doe at mail dot org"),
    ("See https://acme.com/help", "See acme dot com slash help"),
    ("It was -$15", "It was minus fifteen dollars"),
    ("Open Tue-Thu, 8-4", "Open Tuesday to Thursday, eight to four"),
    ("Open 11am–7pm", "Open eleven AM to seven PM"),
    ("It cost $2,418.07.", "It cost two thousand four hundred eighteen dollars and seven cents."),
    ("Revenue was $3.4B", "Revenue was three point four billion dollars"),
    ("Meet on 2024-03-15 at 19:45", "Meet on March fifteenth, twenty twenty-four at nineteen forty-five"),
    ("He is 5'10\" and rated 4.5/5", "He is five feet ten and rated four point five out of five"),
    ("Ship to 123 Main St, Austin, TX 78701",
     "Ship to one twenty-three Main Street, Austin, Texas seven eight seven zero one"),
    ("In 1999 we sold 2048 bytes", "In nineteen ninety-nine we sold two thousand forty-eight bytes"),
    ("Henry VIII, Chapter IV", "Henry the eighth, Chapter four"),
    ("Add 1/2 cup, 5 kg, 10km", "Add one half cup, five kilograms, ten kilometers"),
]  # fmt: skip

# Kinds a voice-bot judge found misread (issue: "reads only about 75 % as a person would").
ROLES = [
    ("Wed, Mar 12 or Sat 10/4", "Wednesday, March twelfth or Saturday October fourth"),
    ("We wed in the sun.", "We wed in the sun."),
    ("Closed Sun.", "Closed Sunday."),
    ("Gate B22, seat 14C, exit 23B, I-80",
     "Gate B twenty-two, seat fourteen C, exit twenty-three B, I eighty"),
    ("Serial SN48213977", "Serial S N four eight two one three nine seven seven"),
    ("A 40 x 30 x 15 cm box", "A forty by thirty by fifteen centimeter box"),
    ("Set 1920x1080", "Set nineteen twenty by ten eighty"),
    ("Order #58213, ticket #3, issue #412",
     "Order number five eight two one three, ticket number three, issue number four twelve"),
    ("Room 1207, suite 450", "Room twelve oh seven, suite four fifty"),
    ("Text STOP to 55123", "Text stop to five five one two three"),
    ("The meeting ID is 845 2231 9907",
     "The meeting I D is eight four five, two two three one, nine nine zero seven"),
    ("Open invoice_2024.pdf", "Open invoice underscore twenty twenty-four dot P D F"),
    ("A 10 GB plan, 10 GB more", "A ten gigabyte plan, ten gigabytes more"),
    ("Use SPRING25 or SAVE20", "Use SPRING twenty-five or SAVE twenty"),
    ("A 16:9 screen, odds of 5:1, at 4:30", "A sixteen by nine screen, odds of five to one, at four thirty"),
    ("Add 1 1/2 cups and 2 3/4 in", "Add one and a half cups and two and three quarters in"),
]  # fmt: skip


# Kinds found by running the reader against a public normalization suite's development half.
WRITTEN_OTHERWISE = [
    ("july 25 2012, 20 january", "July twenty-fifth twenty twelve, the twentieth of January"),
    ("Due 15-01-2020 or Jan-15", "Due the fifteenth of January, twenty twenty or January fifteenth"),
    ("On 2016/07/03", "On July third, twenty sixteen"),
    ("Server IP 10.0.12.255", "Server I P one zero dot zero dot one two dot two five five"),
    ("Call (555)555-5555 or +1(212) 555-0199",
     "Call five five five, five five five, five five five five or plus one, two one two, five five five, "
     "zero one nine nine"),
    ("Choose upgrade/downgrade", "Choose upgrade slash downgrade"),
    ("Built in 340 AD at 708 N 1st St", "Built in three forty A. D at seven oh eight North first Street"),
    ("$20/mo, $149/night, 3 GB/s, 60 km2",
     "twenty dollars per month, one hundred forty-nine dollars per night, three gigabytes per second, "
     "sixty square kilometers"),
    ("A 24-hour line, 2-5lb bags, 100 million km, a 401(k)",
     "A twenty-four hour line, two to five pounds bags, one hundred million kilometers, a four oh one k"),
    ("A 5/16 wrench, 31/32, 1/3rd, the mid-1990s",
     "A five sixteenths wrench, thirty-one thirty-seconds, one third, the mid nineteen nineties"),
    ("Closed Sat and Sun, open every Wed", "Closed Saturday and Sunday, open every Wednesday"),
    ("Take I-405 to gate D104, order #A1234",
     "Take I four oh five to gate D one oh four, order number A. one two three four"),
    ("Reply YES to 22333, enter 4471#",
     "Reply yes to two two three three three, enter four four seven one pound"),
    ("Add 1-1/2 cups, 1½ tsp, a 12'x14' deck",
     "Add one and a half cups, one and a half teaspoons, a twelve feet by fourteen feet deck"),
    ("C++ or 2+3 or test$", "C plus plus or two plus three or test dollar"),
    ("A 4 ft x 8 ft sheet, Mon/Wed/Fri, US-101, 1080p",
     "A four foot by eight foot sheet, Monday, Wednesday and Friday, U S one oh one, ten eighty p"),
    ("It runs 1:04:30, doors at 7.30 pm",
     "It runs one hour four minutes and thirty seconds, doors at seven thirty PM"),
]  # fmt: skip


@pytest.mark.parametrize(("written", "spoken"), ROLES + WRITTEN_OTHERWISE)
def test_numbers_and_codes_are_read_by_the_role_they_play(written: str, spoken: str) -> None:
    assert read(written).text == spoken


KEPT_TOGETHER = [
    "Your visit is Wed, Mar 12 at 3pm.", "Meeting ID: 845 2231 9907.", "Code: 553 219 now.",
    "Ext: 4021 or Order: 7731", "OTP: 551203", "Password: Tr0ub4dor&3", "Visit us in Ft. Worth today.",
]  # fmt: skip


@pytest.mark.parametrize("text", KEPT_TOGETHER)
def test_a_weekday_or_an_id_word_keeps_its_date_or_number_in_its_unit(text: str) -> None:
    assert preview(text, ToneBackend.capabilities) == read(text).text


@pytest.mark.parametrize(("written", "spoken"), READS)
def test_each_token_is_read_as_what_it_is(written: str, spoken: str) -> None:
    assert read(written).text == spoken


def test_every_written_token_keeps_its_count_of_spoken_words() -> None:
    reading = read("Pay $2,418.07 to jane.doe@mail.org today.")
    assert reading.written == ("Pay", "$2,418.07", "to", "jane.doe@mail.org", "today.")
    assert sum(reading.counts) == len(reading.text.split())
    assert reading.counts[1] == 9  # two thousand four hundred eighteen dollars and seven cents


def test_an_unknown_language_passes_through() -> None:
    assert read("Es kostet 5 €", "xx").text == "Es kostet 5 €"


def _marks(words: list[str]) -> list[WordMark]:
    return [WordMark(w, 100 * i, 100 * i + 90) for i, w in enumerate(words)]


def test_marks_on_spoken_words_become_marks_on_the_written_token() -> None:
    """A written token's mark starts with its first spoken word and spans all of them."""
    reading = read("Call 415-555-0188 now")
    groups = list(zip(reading.written, reading.counts, strict=True))
    marks = to_written(_marks(reading.text.split()), groups)
    assert [m.word for m in marks] == ["Call", "415-555-0188", "now"]
    assert (marks[1].start_sample, marks[1].end_sample) == (100, 100 * 10 + 90)  # ten spoken words
    assert marks[2].start_sample == 1100


def test_streamed_marks_name_the_written_token_once_its_audio_starts() -> None:
    reading = read("It is $5 now")
    relabel = WrittenMarks()
    relabel.add(zip(reading.written, reading.counts, strict=True))
    spoken = _marks(reading.text.split())  # It is five dollars now
    assert [m.word for m in relabel.relabel(spoken[:3])] == ["It", "is", "$5"]
    assert [m.word for m in relabel.relabel(spoken[3:])] == ["now"]


def test_a_mismatched_count_leaves_the_marks_as_the_model_gave_them() -> None:
    marks = _marks(["a", "b"])
    assert to_written(marks, [("x", 3)]) == tuple(marks)


SENTENCES = [
    "Your total is $2,418.07. Call 415-555-0188 or write to jane.doe@mail.org today.",
    "Dial 0800 123 456, then enter PIN 0091. We are open Tue-Thu, 11am–7pm.",
    "Order 4410-AZ ships on 03/15/2024 to 123 Main St, Austin, TX 78701.",
    "It was -€15, about 10-15% off, see https://www.acme.com/help for 5'10\" sizes.",
    "Wed, Mar 12: gate B22, room 1207, a 40 x 30 cm box, 1 1/2 cups, order #58213, ID: 845 2231 9907.",
    "Write to a-1.b3_c&-d@gma4i-l.com or sdf@gmail.com/123-sm today.",
    "See https://www.acme.com/help?id=42&lang=en, then ourdailynews.abc or 192.168.1.1:8080.",
    "Follow @jane_doe and #BlackFriday2024, open Q3_Report-final.xlsx, not end.Next or e.g this.",
    "Ask Dr. Ruiz on Elm Dr. in Reno, NV, see p. 14, Fl 5 at 88 Willow Way, Lt. Col. Reyes.",
    "Staffed 0600-1830 (GMT +4:30), ISSN 0412-9931; the thermostat to 75F, 3 gal in mL, a reminder for 5/8.",
    "The GTX-980, RX 7900 and SR-71 (code TRX-550) at www.nvidia.com/rtx-6000: 1/n, €£¥, 30º&C.",
    "Leave at 0730 via I-80 W for the 10K; a $25 voucher, a 50/50 split, case ID 7710-2281, +33 6 123456.",
    "Open 8:30 AM–6:00 PM (Th 4/2), scored 640/800 in 2h 15m at the 5K; see pick (# 412).",
    "Pays $18–22/hr Tue.–Thu. 9–5, sizes XS–L, 2004–present; what is 10/4? the $20 fee, 72 bpm.",
    'Reply YES or NO. The "Phase 3" plan (1953 - 1961) used a 14" pan, No. 7, back in 15 min. or less.',
]


def _read_fed(pieces: list[str]) -> str:
    seg = Segmenter()
    stage = SpeakableStage(ToneBackend.capabilities)
    texts: list[str] = []
    for piece in pieces:
        seg.feed(piece, 0.0)
        texts += [u.text for u in stage.take(seg.units_ready())]
    seg.flush()
    texts += [u.text for u in stage.take(seg.units_ready())]
    return " ".join(texts)


@settings(max_examples=250, deadline=None)
@given(index=st.integers(0, len(SENTENCES) - 1), cuts=st.lists(st.integers(1, 200), max_size=40))
def test_every_split_of_a_sentence_reads_as_the_whole_sentence(index: int, cuts: list[int]) -> None:
    """Tokens in any split ("$2", ",418", ".", "07"; "415-", "555") are read as the whole text."""
    text = SENTENCES[index]
    points = sorted({c % len(text) for c in cuts} - {0})
    pieces = [text[a:b] for a, b in zip([0, *points], [*points, len(text)], strict=True)]
    assert _read_fed(pieces) == preview(text, ToneBackend.capabilities)


def test_a_hold_never_cuts_between_the_spaced_groups_of_a_number() -> None:
    """The first-unit and tail holds wait for the token after a number; a letter word lets them cut."""
    seg = Segmenter(first_unit_hold_s=0.1, tail_hold_s=0.3)
    now = 0.0
    for token in ["Please ", "dial ", "0800 ", "123 ", "456 ", "and ", "hold"]:
        seg.feed(token, now)
        now += 1.0
        seg.poll(now)
    seg.flush()
    texts = [u.text for u in seg.units_ready()]
    assert any("0800 123 456" in t for t in texts), texts
    assert all(u.split()[-1] not in ("0800", "123") for u in texts)


def test_the_preview_is_the_text_the_model_gets() -> None:
    assert preview("**Call** 415-555-0188 🎉", ToneBackend.capabilities) == (
        "Call four one five, five five five, zero one eight eight"
    )


def test_an_abbreviation_before_a_number_does_not_end_the_sentence() -> None:
    """ "ext. 204" and "Dec. 31" stay in one unit, so the number is read in its context."""
    seg = Segmenter()
    seg.feed("Call ext. 204 by Dec. 31 please. No. Thanks.", 0.0)
    seg.flush()
    assert [u.text for u in seg.units_ready()] == ["Call ext. 204 by Dec. 31 please.", "No.", "Thanks."]
    priced = Segmenter()  # a price after one: "approx. $420", "(reg. $129)"
    priced.feed("It is approx. $420 (reg. $500). Done.", 0.0)
    priced.flush()
    assert [u.text for u in priced.units_ready()] == ["It is approx. $420 (reg. $500).", "Done."]


HIBARI_CAPS = HibariBackend.capabilities


@pytest.mark.parametrize(
    ("written", "spoken"),
    [
        ('Code <say-as interpret-as="characters">ab12</say-as> ok', "Code A. B one two ok"),
        ('<say-as interpret-as="telephone">+1 415 555 0188</say-as>',
         "plus one, four one five, five five five, zero one eight eight"),
        ('Key <say-as interpret-as="digits">2024</say-as>', "Key two zero two four"),
        ('The <say-as interpret-as="ordinal">3</say-as> one', "The third one"),
        ('Open <sub alias="World Wide Web">WWW</sub> now', "Open World Wide Web now"),
        ('Wait<break time="300ms"/> then go', "Wait, then go"),
        ('Say <phoneme alphabet="ipa" ph="təmˈAtO">tomato</phoneme>', "Say [tomato](/təmˈAtO/)"),
        ('Bad <foo>tag</foo> and <say-as interpret-as="digits">12 cut', "Bad tag and twelve cut"),
        ('An <say-as interpret-as="nonsense">8</say-as> here', "An eight here"),
    ],
)  # fmt: skip
def test_inline_tags_are_never_spoken_and_say_what_they_ask(written: str, spoken: str) -> None:
    assert preview(written, HIBARI_CAPS) == spoken


def test_a_phoneme_tag_for_a_model_without_phonemes_reads_the_word() -> None:
    assert preview('Say <phoneme ph="təmˈAtO">tomato</phoneme>', ToneBackend.capabilities) == "Say tomato"


def test_marks_name_the_words_a_tag_covers_and_a_break_adds_none() -> None:
    stage = SpeakableStage(HIBARI_CAPS)
    (unit,) = stage.take(
        [Unit('Call <sub alias="the help desk">HD</sub> now<break/> ok', 0, Boundary.SENTENCE)]
    )
    assert unit.text == "Call the help desk now, ok"
    assert unit.written == (("Call", 1), ("HD", 3), ("now", 1), ("ok", 1))


def test_a_lexicon_respells_or_gives_phonemes_and_keeps_the_written_word() -> None:
    lexicon = parse_lexicon(
        "# names\nWarmline = warm line\nNguyen /ŋwˈɪn/\n", symbols=HIBARI_CAPS.phoneme_symbols
    )
    stage = SpeakableStage(HIBARI_CAPS, lexicon=lexicon)
    (unit,) = stage.take([Unit("Warmline, said Nguyen.", 0, Boundary.SENTENCE)])
    assert unit.text == "warm line, said [Nguyen](/ŋwˈɪn/)."
    assert unit.written == (("Warmline,", 2), ("said", 1), ("Nguyen.", 1))


def test_a_lexicon_line_that_does_not_parse_or_a_symbol_the_voice_lacks_is_named() -> None:
    with pytest.raises(LexiconError, match=r"line 2: 'oops'"):
        parse_lexicon("a = b\noops\n")
    with pytest.raises(LexiconError, match=r"symbol '\$'"):
        parse_lexicon("Nguyen /ŋw$n/", symbols=HIBARI_CAPS.phoneme_symbols)
    with pytest.raises(LexiconError, match="takes no phonemes"):
        parse_lexicon("Nguyen /ŋwn/")


def test_a_tag_split_across_tokens_is_never_cut_by_a_hold() -> None:
    seg = Segmenter(first_unit_hold_s=0.1, tail_hold_s=0.3)
    now = 0.0
    for token in [
        "Your ",
        "code ",
        "is ",
        "<say-as ",
        'interpret-as="characters">',
        "ab ",
        "cd</say-as> ",
        "ok",
    ]:
        seg.feed(token, now)
        now += 1.0
        seg.poll(now)
    seg.flush()
    texts = [u.text for u in seg.units_ready()]
    assert any('<say-as interpret-as="characters">ab cd</say-as>' in t for t in texts), texts


_PIECES = st.sampled_from(
    ["$", "€", "-", "–", "/", ":", ".", ",", "%", "@", "#", "'", '"', "(", ")", "am", "pm", "St", "TX", "Tue",
     "March", "ext.", "x", "kg", "0", "1", "12", "415", "2024", "99999", "A", "Z", "IV", " ", "  ", "\u00e9",
     "<", ">",
     "<say-as", 'interpret-as="digits">', "</say-as>", "<break/>", "k", "B", "st", "th", "www", "com", "..."]
)  # fmt: skip


@settings(max_examples=400, deadline=None)
@given(st.lists(_PIECES | st.text(max_size=4), max_size=25))
def test_any_text_is_read_without_error_and_every_spoken_word_belongs_to_a_written_token(
    pieces: list[str],
) -> None:
    """Whatever the LLM writes, the stage reads it, never raises, and the counts add up to the words."""
    stage = SpeakableStage(HIBARI_CAPS)
    for unit in stage.take([Unit("".join(pieces) or "x", 0, Boundary.SENTENCE)]):
        assert sum(n for _, n in unit.written) == len(unit.text.split())
        assert all(w for w, _ in unit.written)


def test_a_number_past_the_trillions_is_read_digit_by_digit_in_groups_of_four() -> None:
    assert read("$" + "9" * 16).text == ", ".join(["nine nine nine nine"] * 4) + " dollars"
    assert read("1,000,000,000,000 views").text == "one trillion views"


def test_a_spaced_dash_after_a_time_is_a_range_not_the_first_clause() -> None:
    assert preview("Open 10am - 6pm daily.", ToneBackend.capabilities) == "Open ten AM to six PM daily."
    seg = Segmenter()
    seg.feed("Well - I think so.", 0.0)
    seg.flush()
    assert [u.text for u in seg.units_ready()] == ["Well -", "I think so."]  # a dash after a word still cuts
