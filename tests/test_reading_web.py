"""Addresses read as a person dictates them to a caller: e-mails, URLs, domains, file names, handles
and hashtags; and the look-alikes that are none of these (a missing space, "e.g", "3.5", "v2.1.3")."""

from __future__ import annotations

import pytest

from tts_service.engine.reading import read

# A letter alone is said by its name (the reader's "A." keeps a model from saying the article);
# a short piece no one can pronounce ("cdf", "abc", "aol") is spelled; a country code is spelled.
EMAILS = [
    ("Write to jane.doe@mail.org today.", "Write to jane dot doe at mail dot org today."),
    ("Email a@hotmail.fr now", "Email A. at hotmail dot F R now"),
    ("Email j_smith99@yahoo.co.uk", "Email J underscore smith nine nine at yahoo dot co dot U K"),
    ("Send it to billing+refunds@acme-corp.com please.",
     "Send it to billing plus refunds at acme dash corp dot com please."),
    ("Reach me at info@my-site.io.", "Reach me at info at my dash site dot I O."),
    ("email is a-1.b3_c&-d@gma4i-l.com test",
     "email is A. dash one dot B three underscore C ampersand dash D at G M A. four I dash L dot com test"),
    ("See sdf@gmail.com/123-sm", "See S D F at gmail dot com slash one two three dash S M"),
    ("Email cdf@abc.edu", "Email C D F at A. B C dot E D U"),
    ("Email sam.o'neil@corp.com", "Email sam dot O apostrophe neil at corp dot com"),
    ("Email me at tom@bbc.co.uk", "Email me at tom at B B C dot co dot U K"),
    ("Mail mailto:hello@acme.com", "Mail hello at acme dot com"),
    ("Email ab3.sdd.3@gmail.com", "Email A. B three dot S D D dot three at gmail dot com"),
    ("Email a1b2@abc.com", "Email A. one B two at A. B C dot com"),
    ("Email asdf123@schmidt.de", "Email A. S D F one two three at schmidt dot D E"),
    ("Write to amy@aol.com", "Write to amy at A. O L dot com"),
    ("Email tom.lee@uni.edu", "Email tom dot lee at uni dot E D U"),
    ("Shop at eco-goods.com", "Shop at eco dash goods dot com"),
    ("My email is JohnDoe1985@Outlook.com", "My email is John Doe one nine eight five at Outlook dot com"),
    ("Email ann@ups.com", "Email ann at U P S dot com"),
    ("Email eli@ceo.com or leo_b@irs.gov", "Email eli at C E O dot com or leo underscore B at I R S dot gov"),
    ("Email support@help.zendesk.com", "Email support at help dot zendesk dot com"),
    ("Contact JOE.JONES@EXAMPLE.COM", "Contact joe dot jones at example dot com"),
]  # fmt: skip

# The scheme is never read; the host, port, path and query are.
URLS = [
    ("Visit https://www.acme.com/help?id=42&lang=en now",
     "Visit w w w dot acme dot com slash help question mark I D equals four two ampersand lang equals "
     "E N now"),
    ("Go to http://localhost:8080/admin", "Go to localhost colon eight zero eight zero slash admin"),
    ("Go to http://example.com:3000/api/v2/users",
     "Go to example dot com colon three zero zero zero slash A. P I slash V two slash users"),
    ("Open https://shop.example.store/cart.", "Open shop dot example dot store slash cart."),
    ("See docs.python.org/3/library", "See docs dot python dot org slash three slash library"),
    ("Open file:///c/code/intro.html", "Open slash C slash code slash intro dot H T M L"),
    ("See www.nvidia.com/rtx-6000", "See w w w dot nvidia dot com slash R T X dash six thousand"),
    ("Visit example.co.uk/about-us", "Visit example dot co dot U K slash about dash us"),
    ("Server at 192.168.1.1:8080",
     "Server at one nine two dot one six eight dot one dot one colon eight zero eight zero"),
    ("Get ftp://files.example.org/pub/data.csv",
     "Get files dot example dot org slash pub slash data dot C S V"),
    ("See https://example.com/#section-2", "See example dot com slash hash section dash two"),
    ("Try www.google.com/search?q=tts+voice",
     "Try w w w dot google dot com slash search question mark Q equals T T S plus voice"),
    ("Run it on localhost:3000", "Run it on localhost colon three zero zero zero"),
    ("Join at meet.google.com/abc-defg-hij",
     "Join at meet dot google dot com slash A. B C dash D E F G dash H I J"),
    ("See imdb.com or espn.com/nba today", "See I M D B dot com or E S P N dot com slash N B A. today"),
    ("Use acme.com/%7Euser/a%20b", "Use acme dot com slash percent seven E user slash A. percent two zero B"),
    ("The site is www.irs.gov/refunds", "The site is w w w dot I R S dot gov slash refunds"),
    ("Edit /etc/nginx/nginx.conf now", "Edit slash E T C slash nginx slash nginx dot conf now"),
    ("Open ~/Documents/notes.txt", "Open tilde slash Documents slash notes dot T X T"),
    ("Open C:\\Users\\jane\\report.docx",
     "Open C colon backslash Users backslash jane backslash report dot docx"),
]  # fmt: skip

# Any lower-case name.name with a short alphabetic ending is a domain, known ending or not.
DOMAINS = [
    ("Visit test.abc", "Visit test dot A. B C"),
    ("Visit mysite.io today", "Visit mysite dot I O today"),
    ("Visit ourdailynews.abc today", "Visit ourdailynews dot A. B C today"),
    ("Book at my.blog.travel now", "Book at my dot blog dot travel now"),
    ("Try amazon.com.", "Try amazon dot com."),
    ("Visit www.ourdailynews.com.sm", "Visit w w w dot ourdailynews dot com dot S M"),
    ("Try Google.com or test2.uk", "Try Google dot com or test two dot U K"),
    ("See acme.me or acme.co", "See acme dot me or acme dot co"),
    ("Buy at Amazon.com's store", "Buy at Amazon dot com's store"),
    ("Visit Acme.Website today", "Visit Acme dot Website today"),
    ("Visit 4chan.org or 7-eleven.com", "Visit four chan dot org or seven dash eleven dot com"),
]

FILES = [
    ("Open report.pdf please", "Open report dot P D F please"),
    ("Open Q3_Report-final.xlsx please", "Open Q three underscore Report dash final dot X L S X please"),
    ("Read the README.md file", "Read the README dot M D file"),
    ("Run setup.py now", "Run setup dot P Y now"),
    ("Open index.html.", "Open index dot H T M L."),
    ("Save invoice_2024.pdf", "Save invoice underscore twenty twenty-four dot P D F"),
    ("Send photo.jpeg", "Send photo dot jpeg"),
    ("Edit style.css and notes.rtf", "Edit style dot C S S and notes dot R T F"),
]

TAGS = [
    ("Follow @jane_doe on X", "Follow at jane underscore doe on X"),
    ("Use #mytext# here", "Use hashtag mytext here"),
    ("Shop #BlackFriday2024 deals", "Shop hashtag Black Friday twenty twenty-four deals"),
    ("Tag #VoiceAI and @warmline_ai", "Tag hashtag Voice A. I and at warmline underscore A. I"),
    ("Follow @NASA today", "Follow at Nasa today"),
    ("Follow @jane.doe today", "Follow at jane dot doe today"),
    ("Use #tbt", "Use hashtag T B T"),
    ("Follow @user123 and @john_doe99",
     "Follow at user one two three and at john underscore doe ninety-nine"),
    ("Try #100DaysOfCode", "Try hashtag one hundred Days Of Code"),
    ("Read @NASA's post", "Read at Nasa's post"),
]  # fmt: skip

# Look-alikes: none of these is an address, and none is read with "dot".
NOT_ADDRESSES = [
    ("Use e.g. this, i.e. that", "Use for example this, that is that"),
    ("At 9 a.m. sharp", "At nine AM sharp"),
    ("It is 3.5 percent", "It is three point five percent"),
    ("Call at 5 p.m.", "Call at five PM."),
]
NO_DOT = [
    "The end.Next time",
    "It rained.The end",
    "Install v2.1.3 now",
    "Ask Mr.Smith",
    "Use e.g this",
    "See i.e that",
    "Made in the U.S.A today",
    "Go to st.louis now",
    "Fine ok.thanks",
    "The result was 2.50 today",
    "Pay $3.50 now",
    "It is 5.in cash",
    "A 1,200 sq.ft home",
    "Oh well.anyway",
    "hi.bob",
    "See fig.two",
    "I did it.It was fun",
    "Come in.In the end",
]


@pytest.mark.parametrize(("written", "spoken"), EMAILS + URLS + DOMAINS + FILES + TAGS + NOT_ADDRESSES)
def test_an_address_is_read_as_a_person_dictates_it(written: str, spoken: str) -> None:
    assert read(written).text == spoken


@pytest.mark.parametrize("written", NO_DOT)
def test_a_look_alike_is_not_read_as_an_address(written: str) -> None:
    assert " dot " not in f" {read(written).text} "


def test_an_address_is_one_written_token_for_the_marks() -> None:
    reading = read("Mail a-1.b3_c&-d@gma4i-l.com or visit test.abc/x?y=1 now")
    assert reading.written == ("Mail", "a-1.b3_c&-d@gma4i-l.com", "or", "visit", "test.abc/x?y=1", "now")
    assert sum(reading.counts) == len(reading.text.split())
    local = "A. dash one dot B three underscore C ampersand dash D"
    assert (
        read("Mail a-1.b3_c&-d@gma4i-l.com now").text == f"Mail {local} at G M A. four I dash L dot com now"
    )
    assert reading.counts[1] == len(local.split()) + 10


@pytest.mark.parametrize(
    "written",
    ["https://", "file:///", "http://'s", "mailto:@a.com", "www.", "@_", "#_", "C:/", "~/", "a@b.co's"],
)
def test_an_address_with_nothing_after_its_scheme_or_sign_is_read_without_error(written: str) -> None:
    reading = read(f"See {written} now")
    assert sum(reading.counts) == len(reading.text.split())
