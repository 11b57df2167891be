"""English vocabulary the reader looks words up in: units, currencies, abbreviations, names.

Data only; ``english.py`` decides when each applies.
"""

from __future__ import annotations

__all__ = [
    "ABBREVIATIONS",
    "ACRONYM_WORDS",
    "CODE_CONTEXT",
    "COMPASS",
    "COUNTED_TIME",
    "CURRENCY_CODES",
    "CURRENCY_SYMBOLS",
    "DAYS",
    "DIGIT_CONTEXT",
    "FILE_EXTENSIONS",
    "MODEL_YEAR_BEFORE",
    "MONTHS",
    "NUMBERED_RELEASES",
    "ORDINAL_NAMES",
    "ROMAN_CARDINAL_CONTEXT",
    "ROMAN_SUFFIX",
    "SCALES",
    "STATES",
    "STREET_WORDS",
    "SYMBOL_WORDS",
    "TITLES",
    "TLDS",
    "UNITS",
    "WIND_WORDS",
    "YEAR_CONTEXT",
]  # fmt: skip

#: symbol -> (one, many, minor one, minor many); no minor unit: decimals read as "point"
CURRENCY_SYMBOLS: dict[str, tuple[str, str, str, str]] = {
    "$": ("dollar", "dollars", "cent", "cents"),
    "US$": ("US dollar", "US dollars", "cent", "cents"),
    "C$": ("Canadian dollar", "Canadian dollars", "cent", "cents"),
    "A$": ("Australian dollar", "Australian dollars", "cent", "cents"),
    "CA$": ("Canadian dollar", "Canadian dollars", "cent", "cents"),
    "AU$": ("Australian dollar", "Australian dollars", "cent", "cents"),
    "€": ("euro", "euros", "cent", "cents"),
    "£": ("pound", "pounds", "penny", "pence"),
    "¥": ("yen", "yen", "", ""),
    "₹": ("rupee", "rupees", "paisa", "paise"),
    "₩": ("won", "won", "", ""),
    "₽": ("ruble", "rubles", "kopek", "kopeks"),
    "₺": ("lira", "lira", "kurus", "kurus"),
    "₪": ("shekel", "shekels", "agora", "agorot"),
    "₱": ("peso", "pesos", "centavo", "centavos"),
    "R$": ("real", "reais", "centavo", "centavos"),
    "CHF": ("Swiss franc", "Swiss francs", "centime", "centimes"),
}
CURRENCY_CODES: dict[str, tuple[str, str, str, str]] = {
    "USD": ("US dollar", "US dollars", "cent", "cents"),  # the code is written to say which dollars
    "EUR": CURRENCY_SYMBOLS["€"], "GBP": CURRENCY_SYMBOLS["£"],
    "JPY": CURRENCY_SYMBOLS["¥"], "INR": CURRENCY_SYMBOLS["₹"], "CHF": CURRENCY_SYMBOLS["CHF"],
    "CAD": CURRENCY_SYMBOLS["C$"], "AUD": CURRENCY_SYMBOLS["A$"], "BRL": CURRENCY_SYMBOLS["R$"],
    "MXN": ("Mexican peso", "Mexican pesos", "centavo", "centavos"),
    "CNY": ("yuan", "yuan", "", ""),
    "BTC": ("bitcoin", "bitcoin", "", ""),
}  # fmt: skip

SCALES: dict[str, str] = {
    "k": "thousand", "K": "thousand", "m": "million", "M": "million", "mn": "million", "MM": "million",
    "b": "billion", "B": "billion", "bn": "billion", "t": "trillion", "T": "trillion", "tn": "trillion",
    "thousand": "thousand", "million": "million", "billion": "billion", "trillion": "trillion",
    "lakh": "lakh", "crore": "crore",
}  # fmt: skip

#: unit as written -> (one, many); compared case-sensitively first, then lower-case
UNITS: dict[str, tuple[str, str]] = {
    "mm": ("millimeter", "millimeters"), "cm": ("centimeter", "centimeters"), "m": ("meter", "meters"),
    "km": ("kilometer", "kilometers"), "in": ("inch", "inches"), "ft": ("foot", "feet"),
    "yd": ("yard", "yards"), "mi": ("mile", "miles"), "mg": ("milligram", "milligrams"),
    "g": ("gram", "grams"), "kg": ("kilogram", "kilograms"), "lb": ("pound", "pounds"),
    "lbs": ("pound", "pounds"), "oz": ("ounce", "ounces"), "ml": ("milliliter", "milliliters"),
    "mL": ("milliliter", "milliliters"), "l": ("liter", "liters"), "L": ("liter", "liters"),
    "cc": ("cubic centimeter", "cubic centimeters"),
    "gal": ("gallon", "gallons"), "qt": ("quart", "quarts"), "pt": ("pint", "pints"),
    "tbsp": ("tablespoon", "tablespoons"), "tsp": ("teaspoon", "teaspoons"),
    "mph": ("mile per hour", "miles per hour"), "km/h": ("kilometer per hour", "kilometers per hour"),
    "kph": ("kilometer per hour", "kilometers per hour"),
    "kmh": ("kilometer per hour", "kilometers per hour"),
    "m/s": ("meter per second", "meters per second"), "mpg": ("mile per gallon", "miles per gallon"),
    "ms": ("millisecond", "milliseconds"), "s": ("second", "seconds"), "sec": ("second", "seconds"),
    "secs": ("second", "seconds"), "min": ("minute", "minutes"), "mins": ("minute", "minutes"),
    "h": ("hour", "hours"), "hr": ("hour", "hours"), "hrs": ("hour", "hours"), "d": ("day", "days"),
    "wk": ("week", "weeks"), "wks": ("week", "weeks"), "yr": ("year", "years"), "yrs": ("year", "years"),
    "mo": ("month", "months"), "mos": ("month", "months"),
    "KB": ("kilobyte", "kilobytes"), "MB": ("megabyte", "megabytes"),
    "GB": ("gigabyte", "gigabytes"), "TB": ("terabyte", "terabytes"), "kB": ("kilobyte", "kilobytes"),
    "Mbps": ("megabit per second", "megabits per second"),
    "Gbps": ("gigabit per second", "gigabits per second"),
    "Hz": ("hertz", "hertz"), "kHz": ("kilohertz", "kilohertz"), "MHz": ("megahertz", "megahertz"),
    "GHz": ("gigahertz", "gigahertz"), "W": ("watt", "watts"), "kW": ("kilowatt", "kilowatts"),
    "kWh": ("kilowatt hour", "kilowatt hours"), "V": ("volt", "volts"),
    "mAh": ("milliamp hour", "milliamp hours"),
    "°C": ("degree Celsius", "degrees Celsius"), "°F": ("degree Fahrenheit", "degrees Fahrenheit"),
    "°": ("degree", "degrees"), "sq ft": ("square foot", "square feet"),
    "sqft": ("square foot", "square feet"),
    "bd": ("bedroom", "bedrooms"), "bdrm": ("bedroom", "bedrooms"), "ba": ("bathroom", "bathrooms"),
    "m²": ("square meter", "square meters"), "m2": ("square meter", "square meters"),
    "km²": ("square kilometer", "square kilometers"), "cal": ("calorie", "calories"),
    "kcal": ("kilocalorie", "kilocalories"), "psi": ("p s i", "p s i"), "x": ("times", "times"),
}  # fmt: skip

TITLES: dict[str, str] = {
    "Dr": "Doctor", "Mr": "Mister", "Mrs": "Missus", "Ms": "Miz", "Prof": "Professor", "St": "Saint",
    "Sr": "Senior", "Jr": "Junior", "Capt": "Captain", "Gen": "General", "Lt": "Lieutenant",
    "Sgt": "Sergeant", "Rev": "Reverend", "Mt": "Mount", "Ft": "Fort", "Maj": "Major", "Col": "Colonel",
    "Gov": "Governor", "Sen": "Senator", "Rep": "Representative", "Pres": "President", "Adm": "Admiral",
    "Hon": "Honorable",
}  # fmt: skip
#: address words (after a street name or a number): the title reading gives way to these
STREET_WORDS: dict[str, str] = {
    "St": "Street", "Ave": "Avenue", "Av": "Avenue", "Blvd": "Boulevard", "Rd": "Road", "Dr": "Drive",
    "Ln": "Lane", "Ct": "Court", "Pl": "Place", "Pkwy": "Parkway", "Hwy": "Highway", "Sq": "Square",
    "Ter": "Terrace", "Cir": "Circle", "Trl": "Trail", "Expy": "Expressway", "Fwy": "Freeway",
    "Apt": "Apartment", "Ste": "Suite", "Bldg": "Building", "Fl": "Floor",
    "Plz": "Plaza", "Rm": "Room", "Unit": "Unit", "Pt": "Point",
    "N": "North", "S": "South", "E": "East", "W": "West", "NE": "Northeast", "NW": "Northwest",
    "SE": "Southeast", "SW": "Southwest",
}  # fmt: skip
ABBREVIATIONS: dict[str, str] = {
    "C#": "C sharp", "F#": "F sharp",
    "e.g.": "for example", "i.e.": "that is", "etc.": "et cetera", "vs.": "versus", "vs": "versus",
    "approx.": "approximately", "approx": "approximately", "appt.": "appointment", "ext.": "extension",
    "ext": "extension",
    "dept.": "department", "est.": "established", "no.": "number", "No.": "number", "w/": "with",
    "vol.": "volume", "fig.": "figure", "pg.": "page",
    "PhD": "P H D", "Ph.D.": "P H D",
    "w/o": "without", "min.": "minimum", "max.": "maximum", "a.k.a.": "also known as", "aka": "a k a",
    "and/or": "and or", "24/7": "twenty-four seven", "50/50": "fifty-fifty",
    "24/7/365": "twenty-four seven three sixty-five", "Inc.": "Incorporated",
    "Corp.": "Corporation",
    "WWI": "World War one", "WWII": "World War two", "YoY": "year over year", "QoQ": "quarter over quarter",
    "yr": "year", "yrs": "years", "wk": "week", "wks": "weeks", "mos": "months", "avg.": "average",
    "avg": "average", "Avg.": "Average",
    "ref.": "reference", "Ref.": "reference", "msg": "message", "msgs": "messages", "N/A": "N A",
    "n/a": "N A",
    "incl.": "including",
    "incl": "including", "qty": "quantity", "qty.": "quantity", "Attn:": "Attention:", "Attn": "Attention",
    "attn": "attention",
    "Ltd.": "Limited", "ltd.": "limited", "ltd": "limited", "Pvt.": "Private", "Co.": "Company",
    "Jan.": "January", "Feb.": "February", "Mar.": "March",
    "Apr.": "April", "Jun.": "June", "Jul.": "July", "Aug.": "August", "Sep.": "September",
    "Sept.": "September", "Oct.": "October", "Nov.": "November", "Dec.": "December",
    "ea.": "each", "ea": "each", "Ctr.": "Center", "Op.": "Opus", "H.S.": "High School",
    "W/D": "washer dryer", "opt.": "option", "ASAP": "A S A P", "yr.": "year", "wk.": "week", "hr.": "hour",
    "REF#": "reference number", "Ref#": "reference number", "Sec.": "Section", "apt.": "apartment",
    "Apt.": "Apartment",
    "iOS": "I O S", "macOS": "mac O S", "iPadOS": "I pad O S", "watchOS": "watch O S", "tvOS": "T V O S",
}  # fmt: skip

MONTHS: dict[str, int] = {
    name: i + 1
    for i, names in enumerate(
        (("january", "jan"), ("february", "feb"), ("march", "mar"), ("april", "apr"), ("may",),
         ("june", "jun"), ("july", "jul"), ("august", "aug"), ("september", "sep", "sept"),
         ("october", "oct"), ("november", "nov"), ("december", "dec"))
    )
    for name in names
}  # fmt: skip
MONTH_NAMES = ("January", "February", "March", "April", "May", "June", "July", "August", "September",
               "October", "November", "December")  # fmt: skip
DAYS: dict[str, str] = {
    "mon": "Monday", "tue": "Tuesday", "tues": "Tuesday", "wed": "Wednesday", "thu": "Thursday",
    "weds": "Wednesday", "thur": "Thursday", "thurs": "Thursday", "fri": "Friday", "sat": "Saturday",
    "sun": "Sunday", "tu": "Tuesday", "th": "Thursday",
    "monday": "Monday", "tuesday": "Tuesday", "wednesday": "Wednesday", "thursday": "Thursday",
    "friday": "Friday", "saturday": "Saturday", "sunday": "Sunday",
}  # fmt: skip

STATES: dict[str, str] = {
    "AL": "Alabama", "AK": "Alaska", "AZ": "Arizona", "AR": "Arkansas", "CA": "California",
    "CO": "Colorado", "CT": "Connecticut", "DE": "Delaware", "FL": "Florida", "GA": "Georgia",
    "HI": "Hawaii", "ID": "Idaho", "IL": "Illinois", "IN": "Indiana", "IA": "Iowa", "KS": "Kansas",
    "KY": "Kentucky", "LA": "Louisiana", "ME": "Maine", "MD": "Maryland", "MA": "Massachusetts",
    "MI": "Michigan", "MN": "Minnesota", "MS": "Mississippi", "MO": "Missouri", "MT": "Montana",
    "NE": "Nebraska", "NV": "Nevada", "NH": "New Hampshire", "NJ": "New Jersey", "NM": "New Mexico",
    "NY": "New York", "NC": "North Carolina", "ND": "North Dakota", "OH": "Ohio", "OK": "Oklahoma",
    "OR": "Oregon", "PA": "Pennsylvania", "RI": "Rhode Island", "SC": "South Carolina",
    "SD": "South Dakota", "TN": "Tennessee", "TX": "Texas", "UT": "Utah", "VT": "Vermont",
    "VA": "Virginia", "WA": "Washington", "WV": "West Virginia", "WI": "Wisconsin", "WY": "Wyoming",
    "DC": "D C",
}  # fmt: skip

#: all-capital words said as a word, not letter by letter
ACRONYM_WORDS = frozenset(
    [
        "ARM",
        "NASA",
        "NATO",
        "PIN",
        "SIM",
        "GIF",
        "JPEG",
        "COVID",
        "UNESCO",
        "OPEC",
        "LASER",
        "SCUBA",
        "RAM",
        "ROM",
        "CAPTCHA",
        "UNICEF",
        "FEMA",
        "OSHA",
        "ZIP",
        "NAFTA",
        "AIDS",
        "ASAP",
        "FAQ",
        "IKEA",
        "LEGO",
        "WIFI",
        "SWAT",
        "RADAR",
        "SONAR",
        "PAC",
        "NOAA",
        "DARPA",
        "ICE",
        "GEICO",
    ]
)
#: a digit string after these is an identifier, read digit by digit
DIGIT_CONTEXT = frozenset(
    [
        "pin",
        "code",
        "passcode",
        "otp",
        "zip",
        "postcode",
        "postal",
        "verification",
        "account",
        "acct",
        "card",
        "ending",
        "ends",
        "flight",
        "extension",
        "ext",
        "ext.",
        "x",
        "order",
        "confirmation",
        "ticket",
        "reference",
        "ref",
        "tracking",
        "invoice",
        "booking",
        "reservation",
        "member",
        "policy",
        "case",
        "claim",
        "serial",
        "id",
        "number",
        "no.",
        "#",
        "model",
        "gate",
        "seat",
        "badge",
        "routing",
        "cvv",
        "cvc",
        # the codes of forms, drugs and businesses ("CPT 99213", "EIN 41-1234567", "SKU 448210")
        "cpt",
        "ein",
        "npi",
        "sku",
        "upc",
        "ndc",
        "rma",
        "mrn",
        "tin",
        "hcpcs",
    ]
)
CODE_CONTEXT = frozenset(
    [
        "code",
        "confirmation",
        "reference",
        "ref",
        "booking",
        "order",
        "tracking",
        "serial",
        "voucher",
        "promo",
        "coupon",
    ]
)
YEAR_CONTEXT = frozenset(
    [
        "in",
        "since",
        "of",
        "by",
        "year",
        "from",
        "until",
        "till",
        "through",
        "before",
        "after",
        "during",
        "circa",
        "around",
        "early",
        "late",
        "mid",
        "spring",
        "summer",
        "autumn",
        "fall",
        "winter",
        "class",
    ]
) | frozenset(["q1", "q2", "q3", "q4", "h1", "h2", "fy"])  # a fiscal period: "Q3 2027 looks good"
ROMAN_CARDINAL_CONTEXT = frozenset(
    [
        "chapter",
        "part",
        "volume",
        "vol",
        "book",
        "act",
        "phase",
        "stage",
        "level",
        "class",
        "type",
        "war",
        "episode",
        "season",
        "appendix",
        "section",
        "article",
        "title",
        "grade",
        "tier",
        "schedule",
        "round",
        "rocky",
        "star",
        "wars",
        "bowl",
    ]
)
ORDINAL_NAMES = frozenset([
    "henry", "louis", "george", "edward", "elizabeth", "charles", "james", "william", "richard",
    "john", "pope", "pius", "benedict", "leo", "paul", "gregory", "napoleon", "philip", "frederick",
    "alexander", "peter", "catherine", "mary", "ramses", "sam", "samuel", "thomas", "joseph",
    "robert", "michael", "david", "daniel", "andrew", "anthony", "francis", "frank", "albert",
    "alfonso", "carlos", "juan", "felipe", "ferdinand", "gustav", "olaf", "haakon", "harald",
    "rudolf", "stephen", "victor", "wilhelm", "willem", "constantine", "cyrus", "darius", "ptolemy",
    "amenhotep", "thutmose", "urban", "sixtus", "clement", "boniface", "innocent", "hugh", "harold",
    "ivan", "nicholas", "otto", "casimir", "sigismund", "christian", "frederik", "margrethe",
    "edmund", "ethelred", "baldwin", "kamehameha", "rama", "mohammed", "hassan", "abdullah"
])  # fmt: skip

TLDS = frozenset(
    [
        "com",
        "org",
        "net",
        "io",
        "ai",
        "dev",
        "app",
        "co",
        "edu",
        "gov",
        "us",
        "uk",
        "ca",
        "de",
        "fr",
        "info",
        "biz",
        "me",
        "tv",
        "ly",
        "gg",
        "xyz",
        "tech",
        "store",
        "shop",
        "site",
        "online",
        "health",
        "ie",
        "au",
        "nz",
        "in",
        "jp",
        "es",
        "it",
        "nl",
        "se",
        "no",
        "eu",
        "mil",
        "int",
        # endings longer than the six letters any lower-case name.name may end in (web.is_domain)
        "website",
        "digital",
        "network",
        "company",
        "academy",
        "support",
        "systems",
        "software",
        "services",
        "solutions",
        "marketing",
        "consulting",
    ]
)
FILE_EXTENSIONS = frozenset(
    [
        "pdf",
        "doc",
        "docx",
        "txt",
        "csv",
        "xls",
        "xlsx",
        "ppt",
        "pptx",
        "jpg",
        "jpeg",
        "png",
        "gif",
        "svg",
        "mp3",
        "mp4",
        "wav",
        "mov",
        "zip",
        "tar",
        "gz",
        "json",
        "xml",
        "html",
        "htm",
        "md",
        "py",
        "js",
        "ts",
        "exe",
        "dmg",
        "apk",
        "iso",
        "log",
        "ics",
        "vcf",
        "heic",
        "webp",
        "yaml",
        "yml",
        "toml",
        "ini",
        "cfg",
        "sql",
        "rtf",
        "odt",
        "css",
        "jsx",
        "tsx",
        "java",
        "cpp",
        "mkv",
        "avi",
        "m4a",
        "flac",
        "rar",
        "7z",
        "msi",
        "epub",
        "srt",
    ]
)

SYMBOL_WORDS: dict[str, str] = {
    "&": "and", "+": "plus", "=": "equals", "@": "at", "%": "percent", "#": "number", "×": "times",
    "§": "section", "§§": "sections", "¶": "paragraph", "+/-": "plus or minus", "+-": "plus or minus",
    "÷": "divided by", "~": "about", "≈": "about", "<": "less than", ">": "greater than",
    "±": "plus or minus", ">=": "greater than or equal to", "<=": "less than or equal to",
    "≥": "greater than or equal to", "≤": "less than or equal to", "!=": "not equal to", "≠": "not equal to",
    "°": "degrees", "/": "slash", "*": "times", "->": "to", "→": "to", "€": "euro",
    "$": "dollar", "£": "pound", "¥": "yen",
}  # fmt: skip


#: the letters a furniture listing puts after each side ('112" W x 38" D x 34" H')
SIDE_WORDS = {"W": "wide", "D": "deep", "H": "high", "L": "long"}
#: a code's roman suffix ("OBD-II", "DSM-IV"): its number
ROMAN_SUFFIX = {"II": 2, "III": 3, "IV": 4, "VI": 6, "VII": 7, "VIII": 8, "IX": 9}
_POINTS = {"N": "north", "S": "south", "E": "east", "W": "west"}
_HALF_POINTS = {a + b: _POINTS[a] + _POINTS[b] for a in "NS" for b in "EW"}
#: a compass point ("SW": southwest, "SSW": south-southwest), said as one where the wind or a
#: facing is its subject (``WIND_WORDS``)
COMPASS = (
    _POINTS
    | _HALF_POINTS
    | {c + half: f"{_POINTS[c]}-{said}" for half, said in _HALF_POINTS.items() for c in set(half)}
)
WIND_WORDS = frozenset(["wind", "winds", "gusts", "gusting", "breeze", "breezes", "blowing", "faces",
                        "facing", "heading", "swell", "swells", "current", "currents"])  # fmt: skip
#: what a car's (or a wine's) year comes after: "a silver 2019 Toyota Camry", "a restored 1967 Mustang"
MODEL_YEAR_BEFORE = frozenset(["silver", "black", "white", "red", "blue", "gray", "grey", "green", "gold",
                               "tan", "beige", "used", "new", "certified", "leased", "old", "vintage",
                               "classic", "restored", "preowned", "pre-owned"])  # fmt: skip
#: products whose releases are numbered: "Windows 10/11" is either release, not a date
NUMBERED_RELEASES = frozenset(["Windows", "iOS", "iPadOS", "macOS", "watchOS", "Android", "Office", "Excel",
                               "Word", "Outlook", "PS", "PlayStation", "Xbox", "iPhone", "iPad", "Galaxy",
                               "Pixel", "Python", "Java", "Node", "Ubuntu", "Fedora", "Debian", "Chrome",
                               "Firefox", "Safari", "Edge"])  # fmt: skip
#: what a number before it counts ("ends in 14 days"), rather than names
COUNTED_TIME = frozenset(["day", "days", "week", "weeks", "month", "months", "year", "years", "hour", "hours",
                          "minute", "minutes", "second", "seconds", "night", "nights", "business", "calendar",
                          "working", "more"])  # fmt: skip
