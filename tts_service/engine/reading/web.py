"""Addresses people dictate: e-mails, URLs and domains, file names, handles and hashtags.

Read the way a person says them on the phone: "jane.doe@mail.org" -> "jane dot doe at mail dot
org"; "https://www.acme.com/help" -> "w w w dot acme dot com slash help" (the scheme is never
read). Pieces that are words stay words, digit runs are read digit by digit, and pieces no one
can pronounce are spelled: a letter alone, no vowel ("jd", "xkcd"), two letters that are no word
("en", "id"), three that are no English syllable ("abc", "aol", "irs"), a longer piece with no
English ending ("asdf", "imdb"), and a two-letter country code at the end of a host ("fr", "io").
A CamelCase piece is said hump by hump ("JohnDoe"), an all-capital address in lower case.
"""

from __future__ import annotations

import re

from tts_service.engine.reading.english_tables import (
    ABBREVIATIONS,
    ACRONYM_WORDS,
    FILE_EXTENSIONS,
    TITLES,
    TLDS,
    UNITS,
)
from tts_service.engine.reading.words import NumberWords

__all__ = ["is_domain", "is_email", "is_file_name", "is_url", "read_address", "read_tag", "three_letter_word"]

#: the part before "@": what mail servers accept, with a letter or digit somewhere (linear: no backtracking)
_LOCAL = r"(?=[^@]*[A-Za-z0-9])[\w.+&'%=~-]+"
_HOST = r"[\w-]+(?:\.[\w-]+)*\.[A-Za-z]{2,}"
_REST = r"(?::\d{1,5})?(?:[/?#]\S*)?"  # a port, a path, a query
_EMAIL = re.compile(rf"^(?:mailto:)?{_LOCAL}@{_HOST}{_REST}$")
_SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*://")
_LOCALHOST = re.compile(r"^localhost(?::\d{1,5})?(?:/\S*)?$")
_DOMAIN = re.compile(
    r"^(?P<host>(?:www\.)?(?:[a-zA-Z0-9-]+\.)+(?P<tld>[a-zA-Z]{2,}))(?::\d{1,5})?(?:[/?#]\S*)?$"
)
#: a file's path: "/etc/hosts", "~/notes.txt", "C:\\Users\\jane\\report.docx"
_PATH = re.compile(r"^(?:[A-Za-z]:[\\/][\w.~-]+(?:[\\/][\w.~-]+)*|~?/[\w.-]+(?:/[\w.~-]+)+)[\\/]?$")
_IP_PORT = re.compile(r"^\d{1,3}(?:\.\d{1,3}){3}:\d{1,5}(?:/\S*)?$")
_FILE = re.compile(r"^[\w-]+(?:\.[\w-]+)*\.(?P<ext>[A-Za-z0-9]{1,5})$")
_PIECE = re.compile(r"%[0-9A-Fa-f]{2}|[A-Za-z]+|\d+|.")  # "%7E": an escaped character, by its code
_SYMBOLS = {
    ".": "dot", "/": "slash", "@": "at", "-": "dash", "_": "underscore", ":": "colon", "?": "question mark",
    "=": "equals", "&": "ampersand", "#": "hash", "+": "plus", "%": "percent", "~": "tilde",
    "'": "apostrophe", "!": "exclamation mark", "*": "star", "$": "dollar sign", ",": "comma",
    "\\": "backslash",
}  # fmt: skip
_VOWEL = re.compile(r"[aeiouyAEIOUY]")
_CONSONANT_RUN = re.compile(r"[^AEIOUY]{3}")
#: short pieces said as a word although they look like letters
_SAID = frozenset(
    ["com", "org", "net", "gov", "edu", "info", "co", "me", "app", "dev", "help", "login", "www", "exe"]
)
#: two-letter pieces that are words ("about-us", "sign-in", "my-account"); the others are spelled
_WORDS2 = frozenset([
    "ad", "am", "an", "as", "at", "be", "by", "do", "go", "he", "hi", "if", "in", "is", "it", "me",
    "my", "no", "of", "oh", "ok", "on", "or", "so", "to", "up", "us", "we",
])  # fmt: skip
#: a one-syllable English word of three letters ("bob", "new", "amy", "you"); "abc", "aol", "api" are not
_SYLLABLE = re.compile(
    r"^(?:[bcdfghjklmnprstvwyz]|bl|br|ch|cl|cr|dr|fl|fr|gl|gr|kn|ph|pl|pr|sc|sh|sk|sl|sm|sn|sp|st|sw|th|tr|tw|wh|wr)?"
    r"(?:(?:[aeiou]|ai|au|ay|ea|ee|ei|ey|ie|oa|oe|oi|oo|ou|oy|ue|ui|uy)"
    r"(?:[bcdfgklmnprstvxz]|ck|ff|ll|ss|zz|ct|ft|ld|lf|lk|lm|lp|lt|mp|nd|ng|nk|nt|pt|rb|rd|rk|rm|rn|rp|rt"
    r"|sh|sk|sp|st|th|ch|bs|ds|gs|ks|ms|ns|ps|rs|ts)?"
    r"|[aeiou][bcdfgklmnprstvz][ey]|[aeo]w|y)$"
)
#: three-letter words that start with a vowel, and names: the others ("irs", "ups", "aws", "ios") are letters
_WORDS3 = frozenset([
    "abs", "ace", "act", "add", "ado", "ads", "age", "ago", "aid", "aim", "air", "ale", "all", "amp",
    "amy", "and", "ann", "ant", "any", "ape", "apt", "arc", "are", "ark", "arm", "art", "ash", "ask",
    "ate", "awe", "axe", "eat", "ebb", "egg", "ego", "elf", "elk", "elm", "end", "era", "eve", "ewe",
    "eye", "ice", "icy", "ill", "ink", "inn", "ion", "its", "ivy", "oak", "oar", "oat", "odd", "ode",
    "off", "oil", "old", "one", "opt", "orb", "ore", "our", "out", "owe", "owl", "own", "use",
    "uni", "eco", "emu",  # said as words in domains ("uni.edu", "eco-shop")
    "abe", "ada", "ali", "ana", "ari", "ava", "eli", "eva", "ian", "ike", "ira", "ola", "uma",  # names
    "leo", "mia", "gia", "pia", "lia", "teo",  # and names whose vowels no syllable rule above allows
])  # fmt: skip
#: how an English word may end after its last vowel: a longer piece ending otherwise ("asdf", "imdb",
#: "espn") is spelled; checked against CMU's dictionary, 0.6 % of its words end otherwise, mostly names
_CODAS = frozenset([
    "sc", "nf", "dst", "thm", "thms", "dths",
    "b", "c", "d", "f", "g", "h", "k", "l", "m", "n", "p", "r", "s", "t", "v", "x", "z", "bb", "bs",
    "ch", "ck", "cs", "ct", "cz", "dd", "ds", "dt", "ff", "fs", "ft", "gg", "gh", "gn", "gs", "hl",
    "hm", "hn", "hr", "hs", "ks", "lb", "ld", "lf", "lk", "ll", "lm", "lp", "ls", "lt", "lz", "mb",
    "mm", "mn", "mp", "ms", "nc", "nd", "ng", "nk", "nn", "ns", "nt", "nx", "nz", "pf", "ph", "pp",
    "ps", "pt", "rb", "rc", "rd", "rf", "rg", "rk", "rl", "rm", "rn", "rp", "rr", "rs", "rt", "rv",
    "rz", "sh", "sk", "sm", "sp", "ss", "st", "sz", "th", "ts", "tt", "tz", "wn", "xt", "zz", "bbs",
    "bst", "chs", "cht", "cks", "cts", "dds", "dth", "ffs", "fth", "fts", "ggs", "ghs", "ght", "gns",
    "hrs", "kst", "lbs", "lch", "lds", "ldt", "lfs", "lks", "lls", "lms", "lph", "lps", "lst", "lth",
    "lts", "ltz", "lve", "mbs", "mms", "mpf", "mph", "mps", "mpt", "nch", "nck", "nct", "nds", "ndt",
    "ngs", "nks", "nns", "nst", "nth", "nts", "ntz", "phs", "pps", "pth", "pts", "rbs", "rch", "rck",
    "rds", "rdt", "rfs", "rgh", "rgs", "rks", "rld", "rls", "rms", "rns", "rps", "rrs", "rsh", "rst",
    "rth", "rts", "rtz", "sch", "sks", "sms", "sps", "sth", "sts", "tch", "ths", "tts", "xts", "ghts",
    "lfth", "ngst", "ngth", "nsch", "nths", "rsch", "rths", "tsch",
])  # fmt: skip
_ENDING = re.compile(r"[aeiouy]w?([^aeiouy]*)$")
_UNIT_WORDS = frozenset([unit.lower() for unit in UNITS] + ["sq"])
_HUMP = re.compile(r"[A-Z][a-z]+|[A-Z]+(?![a-z])|[a-z]+")
#: words a sentence starts with, and short replies: "end.then", "ok.cool", "hi.bob" are a missing space
_SENTENCE_WORDS = frozenset([
    "the", "then", "than", "and", "but", "so", "we", "you", "he", "she", "they", "it", "its",
    "this", "that", "there", "these", "those", "next", "also", "now", "when", "what", "why", "how",
    "who", "if", "or", "as", "at", "on", "of", "to", "in", "my", "our", "your", "his", "her",
    "not", "no", "yes", "all", "one", "for", "with", "just", "here", "well", "still", "thanks",
    "thank", "please", "ok", "okay", "bye", "see", "let", "lets", "can", "will", "would", "should",
    "could", "did", "does", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
    "anyway", "great", "cool", "sure", "later", "maybe", "sorry", "right", "good", "fine", "done",
    "nice", "yeah", "yep", "nope", "oh", "hi", "hey", "hello", "wow", "lol", "hmm", "however",
    "first", "finally", "again", "too", "very", "really", "sir", "madam", "me", "us", "is", "be",
    "go", "do", "up", "an", "am", "by", "info", "online", "store", "shop", "site", "health",
])  # fmt: skip


def is_email(core: str) -> bool:
    return "@" in core and _EMAIL.match(core) is not None


def is_url(core: str) -> bool:
    """A URL with a scheme or "www.", localhost, or a file's path."""
    if "/" in core and _SCHEME.match(core) is not None:
        return True
    if (core[:1] in ("~", "/") or core[1:2] == ":") and _PATH.match(core) is not None:
        return True
    low = core[:10].lower()
    return low.startswith("www.") or (low.startswith("localhost") and _LOCALHOST.match(core) is not None)


def _possessive(core: str) -> tuple[str, str]:
    """("Amazon.com", "'s") from "Amazon.com's"."""
    return (core[:-2], core[-2:]) if core[-2:] in ("'s", "’s") else (core, "")


def is_domain(core: str) -> bool:
    """ "acme.com", "4chan.org", "test.abc/x", "192.168.1.1:8080": a host, maybe a port and a path.

    A known ending, or any lower-case name.name whose labels have 2+ characters and whose ending has
    2 to 6 letters and is no file extension, unit or sentence word: "end.Next", "e.g", "3.5",
    "Mr.Smith", "sq.ft", "ok.cool" are not hosts."""
    if "." not in core:
        return False
    core = _possessive(core)[0]
    m = _DOMAIN.match(core)
    if m is None:
        return core[0].isdigit() and ":" in core and _IP_PORT.match(core) is not None
    tld = m.group("tld").lower()
    if core[0].isdigit():  # "4chan.org", "7-eleven.com"; "3.5", "5.in" are no host
        first = core.split(".", 1)[0]
        return tld in TLDS and not first.isdigit() and any(c.isalpha() for c in first)
    if tld in TLDS:  # "done.It", "me.Me": a capitalised word after a missing space, no ending
        return not (m.group("tld").istitle() and tld in _SENTENCE_WORDS)
    host = m.group("host")
    labels = host.split(".")
    return (
        host.islower()
        and len(tld) <= 6
        and all(len(label) >= 2 for label in labels)
        and tld not in FILE_EXTENSIONS
        and tld not in _SENTENCE_WORDS
        and (
            len(labels) > 2 or labels[0] not in _SENTENCE_WORDS or host != core
        )  # "hi.bob"; "my.blog.travel"
        and labels[0].title() not in TITLES  # "st.louis", "mr.smith"
        and labels[0] not in ABBREVIATIONS  # "vs.them"
        and not {labels[0], tld} & _UNIT_WORDS  # "sq.ft", "mins.later"
    )


def is_file_name(core: str) -> bool:
    if "." not in core:
        return False
    m = _FILE.match(core)
    return m is not None and m.group("ext").lower() in FILE_EXTENSIONS


def three_letter_word(low: str) -> bool:
    """A lower-case three-letter piece said as a word ("new", "act", "box"), not spelled ("ceo")."""
    return low in _WORDS3 or (low[0] not in "aeiou" and _SYLLABLE.match(low) is not None)


def _letters_said(piece: str, words: NumberWords, *, country: bool = False) -> str:
    """A run of letters: a word when it is one, else its letter names."""
    low = piece.lower()
    if low == "www":
        return "w w w"
    if low == "edu":
        return words.letters("EDU")  # "harvard dot E D U", as a school's address is said
    if low in _SAID:
        return low
    if len(piece) == 1:
        return words.letters(piece)
    if country and len(piece) == 2:
        return words.letters(piece)  # "dot F R", "dot I O"
    if piece.isupper():
        if len(piece) <= 3 and piece not in ACRONYM_WORDS:
            return words.letters(piece)
        if piece in ACRONYM_WORDS or (
            _VOWEL.search(piece) and (len(piece) > 5 or not _CONSONANT_RUN.search(piece))
        ):
            return piece  # "MARY", "EXAMPLE"; "HTML", "USPS" are spelled
        return words.letters(piece)
    if _VOWEL.search(piece) is None:
        return words.letters(piece)
    if len(piece) == 2 and low not in _WORDS2:
        return words.letters(piece)
    if len(piece) == 3 and piece.upper() not in ACRONYM_WORDS and not three_letter_word(low):
        return words.letters(piece)
    if not (piece.islower() or piece[1:].islower()):  # "JohnDoe", "YouTube", "OpenAI"; not "NeMo", "iPhone"
        humps = _HUMP.findall(piece)
        if len(humps) > 1 and all(len(h) >= 3 or h.isupper() for h in humps):
            return " ".join(_letters_said(h, words) for h in humps)
        return piece
    ending = _ENDING.search(low)
    unsaid = ending is not None and ending.group(1) and ending.group(1) not in _CODAS
    if len(piece) >= 4 and unsaid and low not in FILE_EXTENSIONS:  # "docx", "webp" are said as written
        return words.letters(piece)
    return piece


def _piece(
    piece: str, words: NumberWords, *, file: bool = False, country: bool = False, rounds: bool = False
) -> str:
    if piece[0] == "%" and len(piece) == 3:
        return "percent " + " ".join(words.digits(c) if c.isdigit() else words.letters(c) for c in piece[1:])
    if piece.isdigit() and file and re.match(r"^(?:19|20)\d\d$", piece):
        return words.year(int(piece))  # "invoice_2024.pdf": a year in a file name
    if rounds and piece.isdigit() and 3 <= len(piece) <= 4 and piece[0] != "0" and piece.endswith("00"):
        return words.cardinal(int(piece))  # "nvidia.com/rtx-6000": a round number is said as one
    if piece.isdigit():
        return words.digits(piece)
    if piece in _SYMBOLS:
        return _SYMBOLS[piece]
    if not (piece.isascii() and piece.isalpha()):
        return ""
    return _letters_said(piece, words, country=country)


def read_address(core: str, words: NumberWords) -> str:
    """An e-mail, URL, domain or file name as dictated; the scheme and a final slash are left out."""
    core = _SCHEME.sub("", core)
    if core.startswith("mailto:"):
        core = core[len("mailto:") :]
    core, owner = _possessive(core)
    core = core.rstrip("/")
    if core.isupper():
        core = core.lower()  # "JOE@ACME.COM": an address has no case, and "JOE" is a name to say
    file = is_file_name(core) and "@" not in core and not is_domain(core)
    path = core[:1] in ("~", "/", "\\") or core[1:2] == ":"
    host_end = len(core) if file or path else next((i for i, c in enumerate(core) if c in ":/?#"), len(core))
    tld_at = -1 if file or path else core.rfind(".", 0, host_end) + 1
    out = []
    for m in _PIECE.finditer(core):
        country = m.start() == tld_at and m.end() == host_end
        # a round number in a path ("/rtx-6000") is said as one; a port, an IP, a mailbox digit by digit
        rounds = m.start() > host_end and core[m.start() - 1] != ":" and not core[:1].isdigit()
        if m.end() == len(core) and core[m.start() - 1 : m.start()] == "." and m.group().lower() == "jpg":
            out.append("jpeg")  # ".jpg" is said "jay-peg", as its long name
            continue
        out.append(_piece(m.group(), words, file=file, country=country, rounds=rounds))
    return " ".join(p for p in out if p) + owner


def read_tag(core: str, words: NumberWords) -> str:
    """ "@warmline_ai" -> "at warmline underscore A. I"; "#VoiceAI" -> "hashtag Voice A. I"."""
    handle = core[0] == "@"
    head = "at" if handle else "hashtag"
    body, owner = _possessive(core[1:])
    parts = re.findall(r"[A-Z]{2,}(?![a-z])|[A-Z]?[a-z]+|[A-Z]|\d+|[_.]", body)
    spoken = []
    for p in parts:
        if p == "_":
            spoken.append("underscore")
        elif p == ".":
            spoken.append("dot")
        elif p.isdigit() and re.match(r"^(?:19|20)\d\d$", p):
            spoken.append(words.year(int(p)))  # "#BlackFriday2024"
        elif p.isdigit():  # "#100DaysOfCode"; a handle's "123" is part of a name, said digit by digit
            spoken.append(words.number(p) if len(p) <= (2 if handle else 4) else words.digits(p))
        elif p in ACRONYM_WORDS:
            spoken.append(p.title())  # "@NASA"
        elif p.isupper():
            spoken.append(words.letters(p) if len(p) <= 4 else _letters_said(p, words))
        elif p.islower():
            spoken.append(_letters_said(p, words))
        else:
            spoken.append(p)
    return " ".join([head, *spoken]) + owner
