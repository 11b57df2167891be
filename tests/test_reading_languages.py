"""The reading stage in the languages without a reader of their own: plain numbers in the
language's words (num2words), everything else as written, one count per written token."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from toy_backends import ToneBackend

from tts_service.engine.reading import read
from tts_service.engine.reading.general import general_reader
from tts_service.engine.reading.lexicon import Lexicon
from tts_service.engine.segmenter import Boundary, Unit
from tts_service.engine.speakable import SpeakableStage

CASES = [
    ("de", "3,5 % von 1.200 Euro.", "drei Komma fünf Prozent von eintausendzweihundert Euro."),
    ("de", "Am 3. Mai um 21 Uhr.", "Am 3. Mai um einundzwanzig Uhr."),  # "3." may be an ordinal
    ("fr", "Le 1er mai, la 1re fois, 21 %.", "Le premier mai, la première fois, vingt et un pour cent."),
    ("fr", "Il a 2,5 ans.", "Il a deux virgule cinq ans."),
    ("es", "El 3º y la 1ª, ¿50%?", "El tercero y la primera, ¿cincuenta por ciento?"),
    ("es", "2.5 o 3,5", "dos punto cinco o tres coma cinco"),
    ("it", "Il 3º posto, 21 euro e 10%.", "Il terzo posto, ventuno euro e dieci per cento."),
    ("pt", "A 2ª vez custa 1.000 reais.", "A segunda vez custa mil reais."),
    ("nl", "De 3e keer, 21 euro.", "De derde keer, eenentwintig euro."),
    ("pl", "Mam 21 lat i 50% zniżki.", "Mam dwadzieścia jeden lat i pięćdziesiąt procent zniżki."),
    ("ru", "Скидка 21% и 5%.", "Скидка двадцать один процент и пять процентов."),
    ("tr", "%50 indirim ve 3,5 kilo.", "yüzde elli indirim ve üç virgül beş kilo."),
    ("ar", "لدي 21 و ٢١ كتابا.", "لدي واحد و عشرون و واحد و عشرون كتابا."),
    ("ja", "3.5キロ 1,000円", "3.5キロ 1,000円"),  # a number glued to a word is left alone
    ("ja", "価格は 1,000 円、 50% です。", "価格は 千 円、 五十 パーセント です。"),
    ("ko", "사과 21 개", "사과 이십일 개"),
    ("sv", "Den 3:e maj, 21 kronor.", "Den tredje maj, tjugoett kronor."),
]


@pytest.mark.parametrize(("language", "written", "spoken"), CASES)
def test_numbers_read_in_the_language(language: str, written: str, spoken: str) -> None:
    reading = read(written, language)
    assert reading.text == spoken
    assert reading.written == tuple(written.split())
    assert sum(reading.counts) == len(spoken.split())


@pytest.mark.parametrize(
    "token", ["007", "-5", "€5", "12345678901234", "A4", "3.", "1,5,5", "1re", "2.000.00"]
)
def test_what_is_not_a_plain_number_is_left_as_written(token: str) -> None:
    assert read(f"Nr {token} hier", "de").text == f"Nr {token} hier"


@pytest.mark.parametrize("language", ["hi", "zh", "xx"])
def test_languages_num2words_lacks_pass_through(language: str) -> None:
    assert general_reader(language) is None
    assert read("मेरे पास 21 किताबें हैं।", language).text == "मेरे पास 21 किताबें हैं।"


def test_english_keeps_its_own_reader() -> None:
    assert general_reader("en") is None
    assert read("It is 21%.", "en").text == "It is twenty-one percent."


def test_comma_groups_thousands_where_a_point_is_the_decimal() -> None:
    assert read("1,200 1,5", "ja").text == "千二百 1,5"  # "1,5": ambiguous there
    assert read("1,200", "de").text == "eins Komma zwei null null"


def test_the_speakable_stage_reads_in_the_session_language() -> None:
    stage = SpeakableStage(ToneBackend.capabilities, language="de-DE")
    (unit,) = stage.take([Unit("Es sind 21 Grad.", 0, Boundary.SENTENCE)])
    assert unit.text == "Es sind einundzwanzig Grad."
    assert unit.written == (("Es", 1), ("sind", 1), ("21", 1), ("Grad.", 1))
    stage.set_reading(language="fr", lexicon=Lexicon())
    (unit,) = stage.take([Unit("Il fait 21 degrés.", 1, Boundary.SENTENCE)])
    assert unit.written[2] == ("21", 3)


LANGS = ["de", "fr", "es", "it", "pt", "nl", "pl", "ru", "tr", "ar", "ja", "ko", "sv"]
_TOKEN = st.one_of(
    st.from_regex(r"[(¿]?[0-9]{1,14}([.,][0-9]{1,4})?[%º]?[.,)?]?", fullmatch=True),
    st.sampled_from(["%", "3e", "1er", "2ª", "3:e", "wort", "٣٤", "(x)"]),
)


@given(st.sampled_from(LANGS), st.lists(_TOKEN, min_size=1, max_size=8))
@settings(max_examples=200, deadline=None)
def test_every_written_token_keeps_its_count(language: str, tokens: list[str]) -> None:
    """The marks contract: each written token, in order, with the spoken words it became."""
    reading = read(" ".join(tokens), language)
    assert reading.written == tuple(tokens)
    assert sum(reading.counts) == len(reading.text.split())
    assert all(count >= 1 for count in reading.counts)
