"""Read English as a person would: each written token, in the context of its neighbours, as words.

The text is split at whitespace into written tokens; punctuation around a token is kept around
its spoken form (it carries the prosody). Rules that need more than one token come first (a phone
number in spaced groups, "7 pm", "March 3, 2024", "5 kg", "$3.4 billion", "Tue - Thu", "123 Main
St", "Austin, TX 78701", "3 + 4 = 7", "USD 50"), then the token alone (``english_tokens.read_core``);
dates over several tokens are in ``english_dates``, arithmetic in ``english_math``, money in
``english_money``, what the sentence decides (a closing quote, a title before a name, a state
after a place) in ``english_context``, the split of a token into marks and core in
``english_split``, what the read words decide of each other ("an eight-hour") in
``english_agreement``. Every written token yields its own spoken words (possibly none), so marks can
be given back to what was written; a number no rule reads is still said, never left as digits.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from itertools import accumulate

from tts_service.engine.reading import english_context as sentence
from tts_service.engine.reading import english_dates as dates
from tts_service.engine.reading import english_math as math
from tts_service.engine.reading import english_measures as measures
from tts_service.engine.reading import english_money as amounts
from tts_service.engine.reading import english_phones as phones
from tts_service.engine.reading import english_spans as spans
from tts_service.engine.reading import timedate as td
from tts_service.engine.reading.english_agreement import agree
from tts_service.engine.reading.english_codes import read_back
from tts_service.engine.reading.english_near import Context
from tts_service.engine.reading.english_roles import amount, place_code
from tts_service.engine.reading.english_split import dash_joined, split_token
from tts_service.engine.reading.english_tables import (
    ABBREVIATIONS,
    CURRENCY_CODES,
    DAYS,
    MONTH_NAMES,
    MONTHS,
    SCALES,
    STATES,
    STREET_WORDS,
    TITLES,
    UNITS,
)  # fmt: skip
from tts_service.engine.reading.english_tokens import (
    read_core,
    read_money,
    unit_words,
)  # fmt: skip
from tts_service.engine.reading.english_units import PER_WORDS
from tts_service.engine.reading.words import NumberWords

__all__ = ["read_tokens", "read_unit_tokens", "split_token"]

_DASHES = ("-", "–", "—")
_SPEAKER_TAG = re.compile(r"^\[S\d+\]$")
_PLAIN_INT = re.compile(r"^\d+$")
_SHORT_AMPM = spans.SHORT_AMPM
_AMPM_RANGE = re.compile(r"^([ap]\.?m\.?)[-–—](\d{1,2}(?::\d\d)?)$")
_DECADE = re.compile(r"^(?:1[1-9]\d0|20\d0|['’]?[2-9]0)['’]?s$")
_ADDRESSISH = re.compile(r"[A-Za-z]\d|\d[A-Za-z]|[@/_]")
#: lower-case words some rule reads otherwise (an abbreviation, a unit, a month or day, a street or a
#: title in lower case, a scale): every other lower-case word of four letters or more is said as written
_SPECIAL = frozenset(
    [k.lower().rstrip(".") for k in ABBREVIATIONS]
    + [k.lower() for k in (*TITLES, *STREET_WORDS, *SCALES, *UNITS)]
    + [*MONTHS, *DAYS, "noon", "midnight", "okay", "hours"]
)  # fmt: skip
#: the commonest short words, read as written whatever their neighbours
_PLAIN_WORDS = frozenset(["the", "and", "you", "for", "are", "can", "your", "our", "with", "that", "this",
                          "have", "will", "we", "it", "is", "be", "of", "or", "if", "me", "my", "i'm", "i'll",
                          "it's"])  # fmt: skip
_AGE_UP = re.compile(r"^(\d{1,2})(mo|mos|yr|yrs|wk|wks)\+$")
_UNIT_TO = re.compile(r"^([a-z]{2,4})[-–—](\d{1,3})$")
#: words before a clock time with a bare a/p ("by 10a")
_BEFORE_TIME = frozenset(["by", "at", "and", "to", "until", "till", "from", "before", "after", "around"])
#: signs written apart in a list of them ("like ! or #")
_SIGNS = {"!": "exclamation point", "#": "pound sign", "@": "at sign", "$": "dollar sign",
          "%": "percent sign", "&": "ampersand", "*": "asterisk", "?": "question mark"}  # fmt: skip
_JOINERS = {"/": "slash", "@": "at", "_": "underscore"}


class _Walk:
    def __init__(
        self, tokens: list[str], words: NumberWords, fixed: dict[int, str], quote_open: bool
    ) -> None:
        self.fixed = fixed
        self.raw = tokens
        self.parts = [split_token(t) for t in tokens]
        self.quote_open = sentence.close_quotes(self.parts, quote_open)  # '"Part 2" of': no inches
        self.cores = [p[1] for p in self.parts]
        self.digits_at = sentence.named_digits(self.cores)
        self.topic = frozenset(c.lower() for c in self.cores)
        self.w = words
        self.out: list[str] = [""] * len(tokens)

    def ctx(self, i: int) -> Context:
        start = max(0, i - 3)
        for k in range(i - 1, start - 1, -1):  # "NO. 4; PAGE 276": no word before a ';' or '.' counts
            if any(mark in self.trail(k) for mark in ";.!?"):
                start = k + 1
                break
        before = tuple(c.lower()[:-1] if c[1:] and c[-1] == "#" else c.lower() for c in self.cores[start:i])
        nxt = self.cores[i + 1] if i + 1 < len(self.cores) else ""
        prev_raw = self.cores[i - 1] if i > 0 else ""
        after = self.core(i + 2)
        marked, lead = bool(self.trail(i)), self.lead(i + 1)
        return Context(
            before, nxt.lower(), nxt, marked, prev_raw=prev_raw, after_next=after, next_lead=lead,
            digits_named=i == self.digits_at, topic=self.topic,
        )  # fmt: skip

    def core(self, i: int) -> str:
        return self.cores[i] if 0 <= i < len(self.cores) else ""

    def last(self, i: int) -> bool:
        """Token ``i`` is the unit's last."""
        return i == len(self.cores) - 1

    def lead(self, i: int) -> str:
        return self.parts[i][0] if 0 <= i < len(self.parts) else ""

    def trail(self, i: int) -> str:
        return self.parts[i][2] if 0 <= i < len(self.parts) else ""

    def run(self) -> list[str]:
        i = 0
        while i < len(self.raw):
            if i in self.fixed:
                i += 1
                continue
            taken = self.multi(i)
            if taken > 1 and any(k in self.fixed for k in range(i, i + taken)):
                taken = 0
            if taken == 0:
                self.out[i] = self.single(i)
                taken = 1
            i += taken
        agree(self.cores, [p[2] for p in self.parts], self.out, self.fixed, self.w)
        wrapped = [self.fixed[i] if i in self.fixed else self._wrap(i, s) for i, s in enumerate(self.out)]
        for k in range(1, len(wrapped)):  # "25.00 USD,": a token said with the one before keeps its pause
            pause = self.trail(k).rstrip(")]}\"'”’")
            if not wrapped[k] and k not in self.fixed and pause[-1:] in ",.;:!?" and pause and wrapped[k - 1]:
                wrapped[k - 1] = wrapped[k - 1].rstrip(",") + pause
        return wrapped

    def _wrap(self, i: int, spoken: str | None) -> str:
        lead, core, trail = self.parts[i]
        if _SPEAKER_TAG.match(self.raw[i]):
            return self.raw[i]
        if spoken is None:
            return self.raw[i]
        if not spoken:
            return ""
        if trail[:2] in (".,", ".;") and spoken[-1:].isalpha() and spoken != core:
            trail = trail[1:]  # "Carillon Pt., Kirkland": an abbreviation's period before a comma
        if "--" in trail:
            trail = re.sub("-{2,}", "—", trail)  # the model pauses at a dash, and says nothing for "--"
        if core[:1].isdigit() and lead in ("'", "’"):
            lead = ""  # '80s
        if any(sign in lead for sign in "~≈±§+"):
            lead = lead.replace("~", "about ").replace("≈", "about ").replace("±", "plus or minus ")
            lead = lead.replace("§", "section ").replace("+", "plus ")
        if any(sign in lead for sign in "<>≤≥"):
            for sign, said in (
                ("≤", "at most "),
                ("≥", "at least "),
                ("<", "less than "),
                (">", "greater than "),
            ):
                lead = lead.replace(sign, said)
        if lead.endswith("(") and ")" in core and "(" not in core:
            lead = lead[:-1]  # "(555)555-5555" was read whole
        if trail.startswith(")") and core.count("(") > core.count(")") and "(" not in spoken:
            trail = trail[1:]  # "+1(123)", "501(c)(3)": the parenthesis closes the token's own
        if core.endswith(".") and not trail and i == len(self.raw) - 1 and not spoken.endswith("."):
            trail = "."  # "Ave." ends the sentence too
        if spoken.endswith(".") and trail.startswith("."):
            trail = trail[1:]  # "my HOA.": "H O A." ends the sentence once
        unit = re.split(r"[-\d]", core)[-1]
        if trail[:2] == "." and self.core(i + 1)[:1].islower() and unit and unit_words(unit, False):
            trail = ""  # "3 tbsp. of butter", "a 12-oz. can": the unit's period ends no sentence
        return lead + spoken + trail if core else self.raw[i]

    def set(self, i: int, *spoken: str) -> int:
        for k, s in enumerate(spoken):
            self.out[i + k] = s
        return len(spoken)

    # -- one token ------------------------------------------------------------------------

    def single(self, i: int) -> str:
        core = self.core(i)
        if core in _PLAIN_WORDS or (
            len(core) > 3 and core.isalpha() and core.islower() and core not in _SPECIAL
        ):
            return (
                core  # a plain lower-case word, no rule's business: most of what is read (cost: 1 ms budget)
            )
        listed = [self.raw[k].rstrip(".,") for k in (i - 2, i + 2) if 0 <= k < len(self.raw)]
        if self.raw[i].rstrip(".,") in _SIGNS and any(sign in _SIGNS for sign in listed):
            return _SIGNS[self.raw[i].rstrip(".,")] + self.raw[i][1:]  # "like @ or #": signs listed apart
        if not core:
            return self.raw[i]
        w, ctx = self.w, self.ctx(i)
        prev = self.core(i - 1)
        after_ampm = prev.lower() in td.AMPM and self._rangeable(self.core(i - 2))  # "4:00 am - 8:12 pm"
        if core in _DASHES and self._rangeable(self.core(i + 1)) and (after_ampm or self._rangeable(prev)):
            if sentence.asks_to_calculate(self.ctx(i).before):
                return "minus"  # "how do you solve 3 - 2?"
            return "and" if self.core(i - 3 if after_ampm else i - 2).lower() == "between" else "to"
        if (said := sentence.zone_offset(core, prev, w)) is not None:
            return said  # "GMT +4:30", "UTC-5"
        if (said := math.expression(core, w) or math.term(core, prev, self.core(i + 1), w)) is not None:
            return said  # "1-2=5", "2^10", "y = 2x + 3"
        if core[-1] in "-–—" and core[:1].isdigit() and (head := read_core(core[:-1], self.w, ctx)):
            return head  # "Step 1-": the number, never left as written
        if (
            core in ("x", "X", "ext", "ext.", "Ext.")
            and sum(map(str.isdigit, prev)) >= 7
            and self.core(i + 1).isdigit()
        ):
            return "extension"  # "1-888-555-0177 x 3"
        if core in ("x", "X", "×") and measures.NUMBERISH.match(self.core(i - 1)) and not self.trail(i - 1):
            return "times"  # "3 x a week", "2 x $50" (a dimension, "2 x 4", is read before)
        zip_next = re.match(r"^\d{5}(?:-\d{4})?$", self.core(i + 1)) is not None
        last = i + 1 == len(self.cores)
        ends = last or self.trail(i)[:1] in (",", ".", ";")
        state = core.replace(".", "") if re.match(r"^[A-Z]\.[A-Z]\.$", core) else core  # "Albany, N.Y."
        if sentence.is_state(
            state, after_comma=self.trail(i - 1).endswith(","), first=i == 0, ends=ends, zip_next=zip_next,
            next_lower=self.core(i + 1)[:1].islower(), prev=self.core(i - 1).rstrip("."),
        ):  # fmt: skip
            return STATES[state] + ("." if state != core and last and not self.trail(i) else "")
        if _PLAIN_INT.match(core) and len(core) == 5 and self.core(i - 1) in STATES:
            return w.digits(core)
        if len(core) <= 7 and (said := td.zone(core)) and re.search(r"(?:^|\d)[aApP]\.?[mM]\.?$", prev):
            return said  # "5 pm e.s.t", "5pm est"
        if (secret := read_back(core, ctx.before, w)) is not None:
            return secret  # "the password is Blue42!Sky"
        if core in (">", "→", "»", "›") and prev[:1].isupper() and self.core(i + 1)[:1].isupper():
            return "then"  # "tap Settings > Privacy": a menu's path
        if re.match(r"^x\d{1,2}$", core) and not sum(map(str.isdigit, prev)) >= 7:
            return "times " + w.number(core[1:])  # "earn x2 points"
        if core == "incl." and i == len(self.cores) - 1:
            return "included"  # "with tubes incl."
        if (aged := _AGE_UP.match(core)) is not None:  # "kids 6mo+": six months and up
            return f"{w.number(aged.group(1))} {unit_words(aged.group(2), aged.group(1) != '1')} and up"
        if (spread := _UNIT_TO.match(core)) is not None and (unit := unit_words(spread.group(1), True)):
            return (
                f"{unit} to {w.number(spread.group(2))}"  # "ages 6 wks–5 yrs": one end's unit, then the other
            )
        if _SHORT_AMPM.match(core) is not None and prev.lower() in _BEFORE_TIME:
            return td.read_time(core + "m", w) or core  # "between 7 and 9a", "by 10a Sat"
        if core == "≈" and prev.isalpha() and (prev.istitle() or len(prev) == 1):
            return "is approximately"  # "Pi ≈ 3.14", "x ≈ 5"; "up ≈ 20%" is about
        if core == "#" and self.core(i + 1).lower() in ("key", "sign", "button"):
            return "pound"  # "followed by the # key"
        if core in ("#", "*") and prev.lower() in ("press", "hit", "dial", "enter", "tap"):
            return "pound" if core == "#" else "star"  # the phone's keys
        if (
            core[0] in "xX"
            and (ext := re.match(r"^[xX](\d{1,6})$", core))
            and sum(map(str.isdigit, prev)) >= 7
        ):
            return "extension " + w.digits(ext.group(1))  # "555-0199 x123"
        phone = phones.phone_one(core, w) or td.named_date(core, w) or td.letter_days(core)
        if phone is None and core[0] in "12345678FQ":
            phone = td.quarter(core, w) or phones.vanity(core, w) or amounts.deal(core, w)
        if phone is not None:
            return phone
        if (zip4 := re.match(r"^(\d{5})-(\d{4})$", core)) is not None:
            return f"{w.digits(zip4.group(1))} dash {w.digits(zip4.group(2))}"  # a ZIP+4: "94103-1234"
        ranged = self._range(core, ctx)
        if ranged is not None:
            return ranged
        spoken = read_core(core, w, ctx)
        if spoken is not None and re.match(r"^[-−+]?[A-Z]{0,2}[$€£₹]", core):  # "a CA$150 deposit", "a -$320"
            spoken = sentence.money_before_noun(spoken, ctx.prev(), ctx.next_raw)  # "a $1,000 gift card"
        if spoken is None and any(c.isdigit() for c in core) and not _ADDRESSISH.search(core):
            spoken = w.numbers_in(core)  # "!1", "45º&C": no number left unread (an address is web's)
        if spoken is None and len(core) > 3 and core[:-1].isupper() and core.endswith("."):
            acronym = read_core(core[:-1], w, ctx)  # "4.25% APR.": no date follows, so no "Apr."
            spoken = None if acronym is None else acronym.rstrip(".") + "."
        if spoken is None and any(c.isdigit() for c in core):  # "136,138/4": what web did not read
            spoken = w.numbers_in(re.sub(r"[/@_]", lambda m: f" {_JOINERS[m.group()]} ", core))
        return core if spoken is None else spoken

    def _rangeable(self, core: str) -> bool:
        return bool(core) and (
            measures.NUMBERISH.match(core) is not None
            or (core[-1] in "½¼¾⅓⅔⅛⅜⅝⅞" and amount(core, self.w) is not None)  # "2½–3 hours"
            or td.read_time(core, self.w) is not None
            or td.day_name(core) is not None
            or _DECADE.match(core) is not None
            or core.lower() in ("noon", "midnight")
            or re.match(r"^(?:0?[1-9]|1[0-2])/\d{1,2}(?:/\d{2}|/\d{4})?$", core) is not None  # "11/28–11/30"
            or (td.month_number(core) is not None and len(core) >= 3)
            or re.match(r"^\d{1,2}(?:[aApP]\.?[mM]\.?|st|nd|rd|th)$", core) is not None
        )

    def _range(self, core: str, ctx: Context) -> str | None:
        m = re.match(r"^([^-–—]+)[-–—]([^-–—]+)$", core)
        if m is None or amount(core, self.w) is not None:  # "1-1/2" is one and a half
            return None
        left, right = m.groups()
        if sentence.win_loss(left, right, ctx.prev(), ctx.next_word, ctx.after_next.lower()):
            return f"{self.w.cardinal(int(left))} and {self.w.cardinal(int(right))}"  # "now 10-3"
        if sentence.zip_range(left, right, ctx.before):  # "ZIP codes 30301–30318"
            return f"{self.w.digits(left)} to {self.w.digits(right)}"
        if (lettered := sentence.lettered_range(left, right, self.w)) is not None:
            return lettered  # "A–Z", "S–XL", "1990–present"
        per = re.match(r"^(.+)/([A-Za-z]+)$", right)
        per_unit = per and (unit_words(per.group(2), False) or PER_WORDS.get(per.group(2).lower(), ("",))[0])
        if per and per_unit:
            spread = self._range(f"{left}-{per.group(1)}", ctx)  # "$10–15/hr"
            return None if spread is None else f"{spread} per {per_unit}"
        if _SHORT_AMPM.match(left) and _SHORT_AMPM.match(right):  # "8a-6p": eight AM to six PM
            return " to ".join(td.read_time(side + "m", self.w) or side for side in (left, right))
        if (hours := sentence.military_range(left, right, self.w)) is not None:
            return hours or None  # "0800-1700"; "0919-2697" is a code
        if sentence.identifier_range(left, right, ctx.before):
            return None  # "case ID 5501-7732": one identifier, not a range
        glued = re.match(r"^(\d+(?:\.\d+)?)([A-Za-z°/²]+)$", right)
        glued_left = re.match(r"^(\d+(?:\.\d+)?)([A-Za-z°/²]+)$", left)
        same = glued and glued_left and glued_left.group(2) == glued.group(2)
        if (
            same
            and glued is not None
            and glued.group(2) not in ("s", "k", "K", "M", "B")
            and unit_words(glued.group(2), True)
        ):
            left = glued_left.group(1) if glued_left else left  # "98°F–102°F": the unit once, at the end
        unit = unit_words(glued.group(2), True) if glued and measures.NUMBERISH.match(left) else None
        if glued and unit:  # "2-5lb": "two to five pounds"
            return f"{self.w.number(left)} to {self.w.number(glued.group(1))} {unit}"
        places = [place_code(part, ctx.before[-3:], self.w) for part in (left, right)]
        thousands = left[-1:] in "kK" and right[-1:] in "kK"  # "10K-20K" is no seat
        same_kind = left[:1].isalpha() == right[:1].isalpha() and (
            not left[:1].isalpha() or left[0] == right[0]
        )
        if places[0] and places[1] and same_kind and not thousands:  # "A1–A5"; "T9-X200" is a model
            return f"{places[0]} to {places[1]}"
        if re.match(r"^\d+[kKMB]$", left) and not re.search(r"[kKMB]$", right):
            return None  # "2B-15" is a code: a scale is written on both ends of a range ("10K-20K")
        if not (self._rangeable(left) and self._rangeable(right)):
            return None
        w = self.w
        if right.endswith("%") and not left.endswith("%"):
            left += "%"
        cur = re.match(r"^([$€£¥])", left)
        both = cur is not None and right[:1] in "$€£¥"
        if cur and right[:1].isdigit():
            right = cur.group(1) + right
        if both:  # "$250-$300": each amount with its own unit, as written
            both_said = [read_money(side, w) or w.numbers_in(side) for side in (left, right)]
            return f"{both_said[0]} to {both_said[1]}"
        if cur:  # "$15-20": "fifteen to twenty dollars"
            said_right = read_money(right, w) or w.numbers_in(right)
            said_left = read_money(left, w) or w.numbers_in(left)
            unit = said_left.split()[-1] if said_left.split()[-1] in said_right else ""
            if unit and said_left.endswith(" " + unit) and " and " not in said_left:
                said_left = said_left[: -len(unit) - 1]
            return f"{said_left} to {said_right}"
        ampm = re.search(r"([aApP]\.?[mM]\.?)$", right)
        months = [td.month_number(side) or 0 for side in (left, right)]
        months = months if all(months) else []
        pieces = []
        for k, part in enumerate((left, right)):
            side = Context(ctx.before, "", "", prev_raw=ctx.prev_raw) if k == 0 else ctx
            said = DAYS.get(part.lower()) if part[:1].isupper() else None
            if said is None and months:
                said = MONTH_NAMES[months[k] - 1]  # "Jan–Mar": January to March
            if said is None and (":" in part or re.search(r"[aApP]\.?[mM]\.?$", part)):
                said = td.read_time(part, w)
            if said is None and k == 0 and ampm and _PLAIN_INT.match(part) and int(part) <= 12:
                said = w.cardinal(int(part))
            if (
                said is None
                and len(left) == 4
                and left.isdigit()
                and part.isdigit()
                and 1100 <= int(left) <= 2099
            ):
                said = w.year(int(part)) if len(part) == 4 else w.cardinal(int(part))
            if said is None and part.endswith("%"):
                said = w.number(part[:-1]) + (" percent" if k == 1 else "")
            if said is None:
                said = read_core(part, w, side) or w.numbers_in(part)
            pieces.append(said)
        return f"{pieces[0]} to {pieces[1]}"

    # -- several tokens -------------------------------------------------------------------

    def multi(self, i: int) -> int:
        core = self.cores[i]
        if core in CURRENCY_CODES and not self.trail(i):  # "USD 50": "fifty dollars"
            scale = SCALES.get(self.core(i + 2), "") if not self.trail(i + 1) else ""
            said = amounts.code_amount(core, self.core(i + 1), self.w, scale)
            if said is None:
                return 0
            if scale:  # "USD 5 million": "five", "million dollars"
                number, _, unit = said.partition(" " + scale + " ")
                return self.set(i, "", number, scale + " " + unit)
            return self.set(i, "", said)
        if not any(c.isnumeric() for c in core) and td.month_number(core) is None and core != "may":
            return 0  # every rule over several tokens starts at a number or a month (or a currency)
        return (
            math.spaced_expression(self, i)
            or spans.grouped_id(self, i)
            or phones.phone_spaced(self, i)
            or self._with_ampm(i)
            or spans.short_ampm_pair(self, i)
            or self._ampm_range(i)
            or dates.month_day(self, i)
            or dates.more_days(self, i)
            or dates.day_month(self, i)
            or spans.house_number(self, i)
            or self._spaced_decade(i)
            or spans.dimensions(self, i)
            or spans.rooms(self, i)
            or spans.per_area(self, i)
            or spans.mixed(self, i)
            or measures.range_unit(self, i)
            or measures.number_unit(self, i)
        )

    def _with_ampm(self, i: int) -> int:
        nxt = self.core(i + 1).lower()
        zoned = td.ampm_zone(nxt) if nxt[:1] in "ap" else None  # "1:59 p.m.est"
        if zoned is not None:
            nxt = zoned[0].lower()
        glued = _AMPM_RANGE.match(nxt)  # "9:00 AM–5:00 PM": the am/pm and the range's far end are one token
        if glued is not None:
            nxt = glued.group(1)
        if nxt not in td.AMPM or nxt in ("a", "p"):
            return 0
        sides = [self._clock(part, td.AMPM[nxt]) for part in re.split(r"[-–]", self.core(i), maxsplit=1)]
        if None in sides:  # "9-11 am", "9:30-11:15 pm": both ends take the am or pm
            return 0
        said = " to ".join(s for s in sides if s)
        if glued is not None:
            return self.set(i, said)  # the "AM–5:00" token is read next, by _ampm_range
        return self.set(i, said, td.AMPM[nxt] + (" " + zoned[1] if zoned else ""))

    def _ampm_range(self, i: int) -> int:
        """ "AM–5:00 PM", "am-5": am/pm glued to the far end of a range, then that end's own am/pm."""
        m = _AMPM_RANGE.match(self.core(i).lower())
        if m is None or self.trail(i):
            return 0
        first, nxt = td.AMPM[m.group(1)], self.core(i + 1).lower()
        if nxt in td.AMPM and nxt not in ("a", "p") and (end := self._clock(m.group(2), td.AMPM[nxt])):
            return self.set(i, f"{first} to {end}", td.AMPM[nxt])
        end = td.read_time(m.group(2), self.w) or self.w.number(m.group(2).replace(":", "."))
        return self.set(i, f"{first} to {end}")

    def _clock(self, core: str, ampm: str) -> str | None:
        """ "7", "7:30", "7.30" before am/pm, said without it ("5pm" keeps its own); None when no hour."""
        if core[-1:] in "mM" and (own := td.read_time(core, self.w)) is not None:
            return own  # "5pm-7 pm": "five PM to seven PM"
        said = td.read_time(re.sub(r"^(\d{1,2})\.(\d\d)$", r"\1:\2", core), self.w, next_ampm=ampm)
        if said is None and _PLAIN_INT.match(core) and 1 <= int(core) <= 12:
            return self.w.cardinal(int(core))
        return None if said is None else said.rsplit(" ", 1)[0]

    def _spaced_decade(self, i: int) -> int:
        """ "1980 s": a decade with its "s" set apart."""
        if self.core(i + 1) != "s" or self.trail(i) or not re.match(r"^(?:1[1-9]|20)\d0$", self.core(i)):
            return 0
        return self.set(i, read_core(self.core(i) + "s", self.w, self.ctx(i)) or self.core(i), "")


def _carried(before: Sequence[str], fixed: dict[int, str]) -> dict[int, str]:
    """The unit's fixed readings past the words carried before it, which are context only: never
    read again, never joined to the unit's own tokens by a rule that spans tokens."""
    carried = {k: word for k, word in enumerate(before)}
    return carried | {len(before) + k: said for k, said in fixed.items()}


def read_tokens(tokens: list[str], words: NumberWords, fixed: dict[int, str] | None = None) -> list[str]:
    """The spoken form of each written token (punctuation kept around it; "" for none).

    ``fixed``: token index -> spoken form decided elsewhere (a lexicon entry, a tag), taken as is.
    """
    return read_unit_tokens(tokens, words, fixed)[0]


def read_unit_tokens(
    tokens: list[str],
    words: NumberWords,
    fixed: dict[int, str] | None = None,
    quote_open: bool = False,
    before: Sequence[str] = (),
) -> tuple[list[str], bool]:
    """``read_tokens`` for a unit of a sentence whose earlier units left a double quote open
    (``quote_open``), and whose last words were ``before`` (read as the context of this unit's
    first tokens: "Friday, | 7/10" is a date); also says whether a quote is open after this unit."""
    before = [t.replace('"', "").replace("“", "").replace("”", "") for t in before]  # counted in quote_open
    pieces = [dash_joined(t) if k not in (fixed or {}) else [t] for k, t in enumerate(tokens)]
    if any(len(p) > 1 for p in pieces):  # "555-0100—or": read as the two words it is, said as one
        flat = [piece for p in pieces for piece in p]
        at = [0, *accumulate(len(p) for p in pieces)][:-1]  # where each token's pieces start
        moved = {at[k]: v for k, v in (fixed or {}).items()}
        said, quote_open = read_unit_tokens(flat, words, moved, quote_open, before)
        joined = [" ".join(s for s in said[at[k] : at[k] + len(p)] if s) for k, p in enumerate(pieces)]
        return joined, quote_open
    walk = _Walk([*before, *tokens], words, _carried(before, fixed or {}), quote_open)
    return walk.run()[len(before) :], walk.quote_open
