"""English readings that the sentence decides, not the token's own shape.

A token can look like one thing and be another because of what stands around it: `81"` is
eighty-one inches unless a quote was opened before it (then the `"` closes the quote); `no.` is
"number" only before a number ("he shook his head no."); `NO` in a run of capitals is shouting,
the word, not two letters; `Dr.` before a name is a doctor and after a street's name a drive. The
rules over single tokens (``english_tokens``) see only a token's neighbours, so these live apart:
each is asked with the little it needs and answers None when the sentence does not decide.
"""

from __future__ import annotations

import re

from tts_service.engine.reading.english_roles import noun_after_measure
from tts_service.engine.reading.english_tables import DIGIT_CONTEXT, MONTH_NAMES, STATES, STREET_WORDS, TITLES
from tts_service.engine.reading.web import three_letter_word
from tts_service.engine.reading.words import NumberWords

__all__ = [
    "NUMBER_WORDS",
    "SCHEDULE_WORDS",
    "STREET_ANY",
    "STREET_NAMES",
    "TEMPERATURE_WORDS",
    "asks_to_calculate",
    "close_quotes",
    "estimated",
    "identifier_range",
    "is_state",
    "lettered_range",
    "masked_digits",
    "military_range",
    "military_time",
    "money_before_noun",
    "no_word",
    "race",
    "road_direction",
    "shouted",
    "title_or_street",
    "year_after",
    "zip_range",
    "zone_offset",
]  # fmt: skip

#: full street words after a house number and a name ("742 Evergreen Terrace"): the number is paired
STREET_NAMES = frozenset([
    "Street", "Avenue", "Road", "Drive", "Lane", "Court", "Place", "Boulevard", "Parkway", "Highway",
    "Terrace", "Circle", "Trail", "Way", "Square", "Plaza", "Alley", "Crescent", "Loop", "Pike",
])  # fmt: skip
#: a street's kind, written in full or abbreviated ("Avenue", "Ave", "St", "Apt", "NE")
STREET_ANY = STREET_NAMES | frozenset(STREET_WORDS)
#: written before a number it counts: "No. 5", "NO 88"
NUMBER_WORDS = frozenset(
    ["no.", "No.", "NO.", "No", "NO", "Nos.", "nos.", "p.", "pp.", "VOL", "Vol", "vol", "Sec", "Sec."]
)
_COUNTED = {"no": "number", "nos": "numbers", "p": "page", "pp": "pages", "vol": "volume", "sec": "Section"}
#: state codes that are also words or common abbreviations: a state only before a zip ("Thanks, OK.")
_WORDLIKE_STATES = frozenset(
    ["OK", "HI", "ME", "IN", "OR", "OH", "LA", "DE", "ID", "CO", "AL", "MD", "MS", "DC"]
)  # fmt: skip
_INCHES = re.compile(r"^(?:\d+(?:\.\d+)?|\d{1,2}/\d{1,2})\"$")
#: short words in capitals that are never an acronym: said as the word ("Reply YES", "Vote NO")
_CAPS_WORDS = frozenset([
    "YES", "NO", "NOT", "THE", "AND", "YOU", "ARE", "ALL", "NEW", "NOW", "GET", "BUY", "FOR",
    "BUT", "OFF", "OUT", "ONE", "TWO", "SIX", "TEN", "HOW", "WHY", "WAS", "HAS", "HAD", "HER",
    "HIS", "SHE", "OUR", "TOO", "YET", "ANY", "CAN", "DAY", "BIG", "HOT", "TOP", "WIN", "SEE", "ITS",
    "LET", "WAY", "OWN", "END", "NOR", "FEW", "ASK", "TRY", "USE", "GOT", "SAY", "RUN", "SET", "PUT",
    "FUN", "MY", "BE", "IS", "TO", "OF", "SO", "GO", "UP", "WE", "HE", "BY", "IF",
])  # fmt: skip
#: capitals that are words in a shouted run ("YOUR STOMACH'S IN") but letters alone ("the IT team")
_RUN_WORDS = frozenset(["IT", "US", "IN", "ON", "AT", "AS", "OR", "ME", "DO", "AN", "AM", "HI", "LA"])
#: words that make a glued F or C a temperature ("set the thermostat to 75F"; "seat 14C" is a seat)
TEMPERATURE_WORDS = frozenset([
    "thermostat", "temperature", "temp", "degrees", "heat", "oven", "outside", "high", "low", "highs", "lows",
    "weather", "forecast", "fever", "warm", "cool",
])  # fmt: skip
#: words that make "4/9" after them a date, not four ninths ("set a reminder for 4/9")
SCHEDULE_WORDS = frozenset([
    "reminder", "appointment", "meeting", "scheduled", "schedule", "booked", "book", "reservation",
    "deadline", "expires", "due", "delivery", "arrives", "starting", "beginning", "since", "until", "till",
    "by", "from", "after", "before",
])  # fmt: skip
_OFFSET = re.compile(r"^(?P<zone>GMT|UTC)?(?P<sign>[+−-])(?P<h>\d{1,2})(?::?(?P<m>\d\d))?$")
_HHMM = re.compile(r"^(?P<h>[01]\d|2[0-3])(?P<m>[0-5]\d)$")
_AT_TIME = frozenset(["at", "by", "until", "till", "from", "before", "after", "around", "since", "to"])
_VERBS = frozenset([
    "will", "has", "had", "can", "could", "would", "should", "must", "may", "might", "goes", "went", "gets",
    "got", "covers", "covered", "includes", "comes", "came", "be",
])  # fmt: skip
#: words that describe the noun a price is before, and no noun themselves ("a $25 late fee")
_MONEY_MODIFIERS = frozenset(["late", "initial", "one-time", "annual", "additional", "nonrefundable",
                              "non-refundable", "refundable", "early", "minimum"])  # fmt: skip
#: what a price names when it comes right before, article or not ("eCheck ($0.95 fee)", "in $5 increments")
_PRICED_NOUNS = frozenset(["fee", "fees", "charge", "deposit", "credit", "discount", "bonus", "voucher",
                           "surcharge", "copay", "deductible", "increments", "minimum", "rebate",
                           "coupon", "amounts", "bills", "denominations", "tip", "tips"])  # fmt: skip
_CURRENCY_ONE = {"dollars": "dollar", "euros": "euro", "pounds": "pound", "rupees": "rupee", "cents": "cent"}
_ROAD = re.compile(r"^(?:I|US|SR|CA|TX|NY|Hwy|Route|Rte)-?\d{1,3}$")
_DIRECTIONS = {"N": "North", "S": "South", "E": "East", "W": "West", "NB": "northbound", "SB": "southbound",
               "EB": "eastbound", "WB": "westbound"}  # fmt: skip
_ROAD_WORDS = frozenset(["hwy", "highway", "route", "rte", "interstate", "sr", "us", "i"])
_QUARTERS = {k: STREET_WORDS[k] for k in ("N", "S", "E", "W", "NE", "NW", "SE", "SW")}
_UNIT_WORDS = frozenset(["Apt", "Ste", "Bldg", "Fl", "Rm", "Unit"])
_RACE_AFTER = frozenset(
    ["", "race", "run", "runs", "walk", "with", "in", "on", "at", "and", "this", "last", "next"]
)
_DASH_WORDS = frozenset(["-", "–", "—", "to", "through", "thru", "until"])
_YEAR = re.compile(r"^(?:1[1-9]\d\d|20\d\d)$")
_INITIALS = re.compile(r"^(?:[A-Z]\.){2,}[A-Z]?$")


#: tax forms named by their number, said in pairs ("Form 1040": ten forty)
TAX_FORMS = frozenset(["1040", "1099", "1098", "1095", "1065", "1120", "8821", "2848", "4868", "8962"])


def named_digits(cores: list[str]) -> int:
    """The index of the first plain number after "digits" or "last four" in the unit ("the last four
    digits of the SSN on file are 6032"): those digits are said one by one. -1: none."""
    named = False
    for k, core in enumerate(cores):
        low = core.lower()
        if low in ("digits", "last4") or (low in ("four", "4") and k and cores[k - 1].lower() == "last"):
            named = True
        elif named and core.isdigit():
            return k
    return -1


def tax_form(number: str, prev: str) -> bool:
    """ "Form 1040", "your 1040", "file a 1099": a tax form by its number, not a quantity."""
    if prev == "form" and len(number) in (3, 4):
        return True  # "Form 941", "Form 8821"
    return number in TAX_FORMS and prev in ("form", "your", "my", "the", "a", "his", "her", "their", "file")


def close_quotes(parts: list[tuple[str, str, str]], open_before: bool = False) -> bool:
    """`"Part 2" of`: a double quote after a number that closes a quote opened before it (in the
    unit, or in an earlier unit of its sentence: ``open_before``) is that quote, not an inch mark,
    and so is one after four digits (no one measures 2011 inches: 'accessed April 1, 2011" Site');
    the quote moves back to the token's trailing marks. True if a quote is left open."""
    open_quotes = int(open_before)
    for k, (lead, core, trail) in enumerate(parts):
        if _INCHES.match(core):
            if open_quotes % 2 == 1 or re.match(r"^[1-9]\d{3}\"$", core):
                parts[k] = (lead, core[:-1], '"' + trail)
                open_quotes += 1
            continue
        open_quotes += (lead + core + trail).count('"') + (lead + core + trail).count("“")
        open_quotes -= (lead + core + trail).count("”")
    return open_quotes % 2 == 1


def estimated(core: str, next_raw: str) -> str | None:
    """ "Est. delivery", "est. 2 hrs": estimated; "Est. 1998" (before a year): established."""
    if core.lower() != "est." or core == "EST.":  # "9 PM EST.": the time zone
        return None
    return "established" if re.match(r"^(?:1[5-9]|20)\d\d$", next_raw) else "estimated"


def masked_digits(core: str, w: NumberWords) -> str | None:
    """ "••••4242", "xxxx-4242": a masked card or account number says the digits shown."""
    m = re.match(r"^[•·*xX]{2,}-?(\d{2,6})$", core)
    return None if m is None else w.digits(m.group(1))


#: nouns whose number "no." names, though the number comes later ("your claim no. is 58213")
_NUMBERED_NOUNS = frozenset(["claim", "policy", "case", "account", "order", "invoice", "reference", "ref",
                             "ticket", "member", "serial", "model", "part", "item", "phone", "tel", "booking",
                             "confirmation", "tracking", "flight", "room", "route"])  # fmt: skip


def no_word(core: str, next_raw: str, first: bool, next_lead: str = "", prev: str = "") -> str | None:
    """ "No. 5", "NO 88", "Route No 138", "p. 62", "VOL 24": "number", "page"... before a number;
    "no." with no number after is the word no ("he shook his head no."), its period kept. None: not
    one of these."""
    if core not in NUMBER_WORDS:
        return None
    numbered = (next_raw[:1].isdigit() or next_raw[:1] == "#") and not next_lead  # "Davidson NO (1995)"
    numbered = numbered or (core.lower() == "no." and any(c.isdigit() for c in next_raw))  # "no. SN-99A"
    numbered = numbered or (core.lower() == "no." and prev in _NUMBERED_NOUNS)  # "claim no. is"
    if numbered and not (first and core == "No"):  # "No 2 people are alike"
        return _COUNTED[core.rstrip(".").lower()]
    if core.endswith(".") and core[:-1].lower() == "no":
        return core.lower() if core.isupper() else core
    return None


def shouted(core: str, prev_raw: str, next_raw: str) -> str | None:
    """A short word in capitals: the word, not its letters ("Reply YES or NO", "NO MORE"). Words
    that are also common acronyms (IT, US, AM) are the word only inside a run of capitals."""
    if not core.isupper():
        return None  # "The PIN": only words written in capitals
    if core in _CAPS_WORDS:
        return core.lower()
    word = core in _RUN_WORDS or (len(core) == 3 and core.isalpha() and three_letter_word(core.lower()))
    if word and (_capitals(prev_raw) or _capitals(next_raw)):
        return core.lower()  # "ACT NOW", "WIN BIG" (but "CALL THE CEO": spelled)
    return None


def _capitals(word: str) -> bool:
    bare = re.sub(r"['’][sS]$", "", word)
    return (len(bare) >= 2 or bare in ("I", "A")) and bare.isalpha() and bare.isupper()  # "I AM A DOCTOR"


def year_after(before: tuple[str, ...]) -> bool:
    """ "(1938 - 1981)", "1990 to 1995": the second end of a range that starts at a year is a year."""
    return len(before) >= 2 and before[-1] in _DASH_WORDS and _YEAR.match(before[-2]) is not None


def title_or_street(bare: str, prev_raw: str, next_raw: str, dotted: bool = False) -> str | None:
    """ "Trek's Dr. McCoy", "in 1366 Dr. King", "dr Smith", "st Louis": a title before a name when
    no street's name stands before it (a possessive or a bare number is no street's name); after a
    name and before a lower-case word or nothing, a street ("Oak Dr. is closed", "Queen st via").
    None: the other rules decide ("Main St. Bring", "Visit St. Louis")."""
    title = bare.title() if bare in ("dr", "st") else bare
    if title not in TITLES or title not in STREET_WORDS:
        return None
    quarter = next_raw.replace(".", "") in _QUARTERS  # "Oak Dr E", "Main St. N.E."
    if _INITIALS.match(next_raw) and not quarter:
        return TITLES[title]  # "Tamil Nadu Dr. M.G.R. Medical University": a name's initials
    if prev_raw.istitle() and prev_raw.isalpha() and (not next_raw[:1].isupper() or quarter):
        return STREET_WORDS[title]  # "Oak Dr. is closed", "Oak Dr E"
    if not next_raw[:1].isupper() or next_raw.rstrip(".") in STREET_ANY:
        return None  # "Oak St. Apt 4"
    possessive = prev_raw.endswith(("'s", "’s"))
    if bare.islower() and dotted and prev_raw.istitle() and prev_raw.isalpha():
        return STREET_WORDS[title] + "."  # "Grey st. The fare is": a street after a name ends the sentence
    lower_title = bare.islower()
    if possessive or prev_raw.isdigit() or lower_title:  # "Takes dr Fauver", "st Martin's Press"
        return TITLES[title]
    return None


#: degrees and licences written after a name ("Ann Lee, RN, MD")
_CREDENTIALS = frozenset(
    ["DDS", "DMD", "DO", "PhD", "RN", "NP", "PA", "PA-C", "DVM", "OD", "JD", "MBA", "CPA", "LCSW", "FACS",
     "MS", "MSN", "BSN", "LPN", "Esq", "Jr", "Sr", "MD", "DC", "PT", "DPT"]
)  # fmt: skip


def is_state(
    core: str,
    *,
    after_comma: bool,
    first: bool,
    ends: bool,
    zip_next: bool,
    next_lower: bool = False,
    prev: str = "",
) -> bool:
    """ "Austin, TX 78701", "Galveston, TX, to", "Kansas City, MO." (the unit may start at the code):
    a state code after a place and a comma, before a zip or punctuation; one that is also a word
    only before a zip ("Thanks, OK.")."""
    if core not in STATES or prev in _CREDENTIALS:  # "Dr. Patel, DDS, MD": a degree after a degree
        return False
    if zip_next:
        return after_comma or first
    if core in ("CO", "AL", "MD", "MS", "DE", "LA") and after_comma and next_lower:
        return True  # "a sign-in from Denver, CO at 11:52"
    if after_comma and next_lower and core not in _WORDLIKE_STATES:
        return True  # "from Austin, TX to Nashville"
    return core not in _WORDLIKE_STATES and (after_comma or first) and ends


def zone_offset(core: str, prev: str, w: NumberWords) -> str | None:
    """ "GMT +4:30", "UTC-5": a time zone's offset is "plus four thirty", "minus five", never a
    subtraction or a code."""
    m = _OFFSET.match(core)
    if m is None or not (m.group("zone") or prev.lower() in ("gmt", "utc")):
        return None
    said = ("plus " if m.group("sign") == "+" else "minus ") + w.cardinal(int(m.group("h")))
    if m.group("m") and m.group("m") != "00":
        said += " " + w.cardinal(int(m.group("m")))
    return (w.letters(m.group("zone")) + " " if m.group("zone") else "") + said


def military_range(left: str, right: str, w: NumberWords) -> str | None:
    """ "0800-1700": a range of 24-hour times ("oh eight hundred to seventeen hundred"); "" when the
    sides are four digits with a leading zero that are no times ("ISSN 0919-2697": a code, read
    elsewhere); None when this is no such range."""
    if not (
        len(left) == len(right) == 4 and left.isdigit() and right.isdigit() and "0" in (left[0], right[0])
    ):
        return None
    sides = [_HHMM.match(side) for side in (left, right)]
    if sides[0] is None or sides[1] is None:
        return ""
    return " to ".join(_hhmm(m, w) for m in sides if m)


def military_time(plain: str, prev: str, next_word: str, w: NumberWords) -> str | None:
    """ "leaves at 0730", "by 2359", "at 1500 hrs": four digits after a time word are a 24-hour time
    ("oh seven thirty") when they have a leading zero, are past any year (21:00 on), or "hours"
    follows; "by 2030" stays a year."""
    m = _HHMM.match(plain)
    clock = m is not None and (plain[0] == "0" or plain >= "2100" or next_word in ("hrs", "hours"))
    return _hhmm(m, w) if m and clock and prev in _AT_TIME else None


def money_before_noun(said: str, prev: str, next_raw: str) -> str:
    """ "a $1,000 gift card": an amount before its noun says its currency once, singular."""
    plural = said.rsplit(" ", 1)[-1] if " " in said else ""
    if " and " in said or plural not in _CURRENCY_ONE or next_raw in _VERBS:
        return said  # "the $20 will be refunded": a verb, no noun, follows
    modified = next_raw in _MONEY_MODIFIERS or next_raw in _PRICED_NOUNS  # "a $25 late fee", "($0.95 fee)"
    modified = modified or (
        prev in _MONEY_MODIFIERS and next_raw.isalpha() and next_raw.islower()
    )  # "one-time $75 travel fee"
    if not (noun_after_measure(prev, next_raw) or modified) or next_raw in ("a", "each"):
        return said
    return said[: -len(plural)] + _CURRENCY_ONE[plural]


def _hhmm(m: re.Match[str], w: NumberWords) -> str:
    h, minutes = int(m.group("h")), int(m.group("m"))
    hour = ("oh " if m.group("h")[0] == "0" else "") + w.cardinal(h) if h else "zero zero"
    return hour + " " + ("hundred" if not minutes else ("oh " if minutes < 10 else "") + w.cardinal(minutes))


def zip_range(left: str, right: str, before: tuple[str, ...]) -> bool:
    """ "ZIP codes 30301–30318": a range of ZIP codes, each said digit by digit."""
    zips = {b.lower().rstrip(",:") for b in before[-3:]} & {"zip", "zips", "zipcodes", "postcodes"}
    return bool(zips) and len(left) == len(right) == 5 and left.isdigit() and right.isdigit()


def identifier_range(left: str, right: str, before: tuple[str, ...]) -> bool:
    """ "Your case ID is 5501-7732", "order 4417-2290": digit groups after an identifier word are one
    identifier, read digit by digit, not a range of quantities."""
    groups = left.isdigit() and right.isdigit() and len(left) + len(right) >= 5  # "code 4829-13"
    return groups and bool(DIGIT_CONTEXT.intersection(before[-3:]))


def road_direction(bare: str, prev_raw: str, before: tuple[str, ...]) -> str | None:
    """ "I-95 N", "US-101 SB", "Hwy 1 S": a compass letter after a highway is its direction; after a
    street word, the city's quarter ("King St W")."""
    numbered = prev_raw.isdigit() and len(before) >= 2 and before[-2].rstrip(".") in _ROAD_WORDS
    if _ROAD.match(prev_raw) or numbered:
        return _DIRECTIONS.get(bare.rstrip("."))
    street = prev_raw.rstrip(".")
    if street in STREET_ANY and street not in _UNIT_WORDS:
        return _QUARTERS.get(bare.rstrip("."))  # "250 King St W", "Pennsylvania Ave NW"
    return None


def race(num: str, prev: str, next_word: str, marked: bool) -> bool:
    """ "finished the 5K", "ran a 10K race": a race's distance is "five K", not five thousand (an
    amount has its noun after it: "a 5K bonus")."""
    distance = num in ("1", "3", "5", "8", "10", "12", "15", "21", "25", "50", "100")
    return (
        distance
        and prev in ("a", "the", "this", "his", "her", "my", "our", "their", "your")
        and (marked or next_word in _RACE_AFTER)
    )


#: words that go on an arithmetic question after a number ("what's 10/2 plus 3?")
MATH_WORDS = frozenset(
    ["plus", "minus", "times", "over", "divided", "multiplied", "equals", "mod", "and", "or"]
)
_CALCULATE = frozenset(["solve", "calculate", "compute", "evaluate", "what's", "whats", "subtract", "divide"])


def asks_to_calculate(before: tuple[str, ...]) -> bool:
    """ "what is 10/2?", "how do you solve 3 - 2?": after these words a slash divides and a spaced
    dash subtracts; elsewhere "10/2" is a date and "3 - 2" a range."""
    near = before[-3:]
    return bool(_CALCULATE.intersection(near)) or tuple(near[-2:]) == ("what", "is")


_SIZES = frozenset(["XXS", "XS", "S", "M", "L", "XL", "XXL", "XXXL", "2XL", "3XL", "4XL"])
_OPEN_END = frozenset(["present", "now", "today", "date"])


def win_loss(left: str, right: str, prev: str, next_word: str, after_next: str) -> bool:
    """ "the Chiefs are now 10-3", "a 10-3 record", "10-3 on the season": a team's wins and losses
    ("ten and three"), not a range or a score."""
    if not (left.isdigit() and right.isdigit() and len(left) <= 3 and len(right) <= 3):
        return False
    season = (next_word == "on" and after_next == "the") or (
        next_word == "this" and after_next in ("season", "year")
    )
    return next_word == "record" or prev in ("now", "went", "finished", "improved") or season


def lettered_range(left: str, right: str, w: NumberWords) -> str | None:
    """Ranges of what is no number: "A–Z", "S–XL" (letters or sizes: "S to X L"), "1990–present"
    (a year to now)."""
    if right.lower() in _OPEN_END and _YEAR.match(left):
        return f"{w.year(int(left))} to {right}"
    one_letter = len(left) == len(right) == 1 and left.isalpha() and right.isalpha()
    if one_letter or (left in _SIZES and right in _SIZES):
        return f"{w.letters(left)} to {w.letters(right)}"
    return None


_EXPIRY = frozenset(["expires", "exp", "expiry", "expiration", "expiring", "thru", "exp."])


def card_expiry(month: str, year: str, prev: str, w: NumberWords) -> str | None:
    """ "expires 09/27": a card's month and year ("September twenty twenty-seven"), when the month
    has its leading zero or the year is past 31; "expires 12/31" stays a day."""
    card = month[0] == "0" or int(year) > 31
    if prev not in _EXPIRY or not card or not re.match(r"^(?:0[1-9]|1[0-2])$", month) or len(year) != 2:
        return None
    return MONTH_NAMES[int(month) - 1] + " " + w.year(2000 + int(year))


SERVICE_NUMBERS = frozenset({"911", "411", "311", "211", "511", "611", "711", "811", "988", "999", "112"})
#: year words that win over an identifier word near a year ("Member since 2019"; "ending in 1234" is none)
SINCE = frozenset(["since", "from", "until", "till", "before", "after", "during", "circa", "year", "class"])
_CALLING = frozenset(["call", "dial", "text", "phone", "ring", "contact", "calling", "dialing", "or"])
_AFTER_YEAR = frozenset([
    "and", "or", "to", "when", "was", "is", "we", "i", "for", "at", "on", "with", "as", "until", "after",
    "before", "he", "she", "they", "it", "the", "there",
])  # fmt: skip


def service(plain: str, around: tuple[str, str] | None) -> bool:
    """ "Call 311", "the 988 line": a service number is said digit by digit as a number to call
    (911 always); "112 emails" is a quantity. ``around``: the word before and the word after."""
    if plain == "911" or around is None:
        return True
    return around[0] in _CALLING or around[1] in (
        "line",
        "hotline",
        "number",
        "service",
        "app",
        "request",
        "center",
    )


def clause_follows(next_word: str, marked: bool) -> bool:
    """After a year-like number: punctuation, nothing, or a word that starts a clause ("1990 for the
    Ata", "Founded 1887, rebuilt"), so the number is a year, not a count of something."""
    return marked or not next_word or not next_word[0].isalpha() or next_word in _AFTER_YEAR
