"""Twilio's request signature: golden vectors, the checks, and the ``/twiml`` and ``/twilio`` guards."""

from __future__ import annotations

import asyncio
import logging
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import pytest
from starlette.applications import Starlette
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

from agent import call_cli
from agent.cli import main
from agent.pipeline import AgentParts
from agent.server import AgentSettings, create_agent_app
from transports.serve import serving
from transports.twilio.call import TwilioCall
from transports.twilio.carrier import Carrier
from transports.twilio.server import TwilioSettings, twilio_routes
from transports.twilio.signature import Params, compute_signature, url_variants, valid_signature
from transports.ws.settings import ServerSettings
from tts_service.engine.ports import Backend
from tts_service.runtime import EngineRuntime

#: Twilio's documented example (its security docs and every one of its helper libraries)
DOC_TOKEN = "12345"
DOC_URL = "https://mycompany.com/myapp.php?foo=1&bar=2"
DOC_PARAMS = {
    "CallSid": "CA1234567890ABCDE",
    "Caller": "+12349013030",
    "Digits": "1234",
    "From": "+12349013030",
    "To": "+18005551212",
}
TOKEN = "a-twilio-auth-token"
WEBHOOK_FORM = {"CallSid": "CA9", "From": "+15550001111", "To": "+15550002222", "CallerName": ""}

#: computed by twilio-python's RequestValidator(token).compute_signature(url, params), twilio 9.13.0
#: (installed in a scratch virtualenv, never a dependency of this project)
GOLDEN: list[tuple[str, str, Params, str]] = [
    (DOC_TOKEN, DOC_URL, DOC_PARAMS, "0/KCTR6DLpKmkAf8muzZqo1nDgQ="),
    (DOC_TOKEN, DOC_URL, {}, "zYQTYrRWXE7LtzbG4PfP7/bkkGo="),
    (TOKEN, "https://bot.example.com:8443/twiml?token=s3cret", WEBHOOK_FORM, "iC2YpZ+NIlxb/R8dYeA+QcV8fjo="),
    (TOKEN, "wss://bot.example.com/twilio", {}, "VWE32Sp8Tm9MifrhGJIkRCEz0RI="),
    # a repeated name (a MultiDict for twilio-python): its values sorted
    (
        DOC_TOKEN,
        DOC_URL,
        {"Sid": "CA123", "SidAccount": "AC123", "Digits": ["5678", "1234"]},
        "IK+Dwps556ElfBT0I3Rgjkr1wJU=",
    ),
    (
        DOC_TOKEN,
        "https://mycompany.com:443/myapp.php?foo=1&bar=2",
        DOC_PARAMS,
        "EpDEmp1PyjDYp77YxYU3GILBWzE=",
    ),
]
#: the last golden vector: Twilio's example signed with the explicit default port
DOC_SIGNED_WITH_PORT = GOLDEN[-1][3]


# -- the pure functions -----------------------------------------------------------------------


@pytest.mark.parametrize(("token", "url", "params", "expected"), GOLDEN)
def test_compute_signature_matches_twilios_own_library(
    token: str, url: str, params: Params, expected: str
) -> None:
    """The signature equals twilio-python's for the documented example, no params, a port, wss://."""
    assert compute_signature(token, url, params) == expected


def test_a_correct_signature_is_accepted() -> None:
    """Twilio's documented example validates."""
    assert valid_signature(DOC_TOKEN, DOC_URL, DOC_PARAMS, "0/KCTR6DLpKmkAf8muzZqo1nDgQ=")


@pytest.mark.parametrize(
    ("token", "url", "params", "signature"),
    [
        (DOC_TOKEN, DOC_URL, {**DOC_PARAMS, "Digits": "1235"}, "0/KCTR6DLpKmkAf8muzZqo1nDgQ="),
        (DOC_TOKEN, DOC_URL, {**DOC_PARAMS, "Extra": ""}, "0/KCTR6DLpKmkAf8muzZqo1nDgQ="),
        (DOC_TOKEN, DOC_URL.replace("foo=1", "foo=2"), DOC_PARAMS, "0/KCTR6DLpKmkAf8muzZqo1nDgQ="),
        (DOC_TOKEN, DOC_URL.replace("https:", "http:"), DOC_PARAMS, "0/KCTR6DLpKmkAf8muzZqo1nDgQ="),
        (DOC_TOKEN, DOC_URL.replace("myapp", "other"), DOC_PARAMS, "0/KCTR6DLpKmkAf8muzZqo1nDgQ="),
        ("12346", DOC_URL, DOC_PARAMS, "0/KCTR6DLpKmkAf8muzZqo1nDgQ="),
        (DOC_TOKEN, DOC_URL, DOC_PARAMS, "0/KCTR6DLpKmkAf8muzZqo1nDgR="),
        (DOC_TOKEN, DOC_URL, DOC_PARAMS, ""),
        (DOC_TOKEN, DOC_URL, DOC_PARAMS, None),
        ("", DOC_URL, DOC_PARAMS, compute_signature("", DOC_URL, DOC_PARAMS)),
    ],
    ids=[
        "param",
        "added-param",
        "query",
        "scheme",
        "path",
        "token",
        "signature",
        "empty",
        "missing",
        "no-token",
    ],
)
def test_anything_changed_is_rejected(token: str, url: str, params: Params, signature: str | None) -> None:
    """A changed or added param, URL, token or signature fails; so do a missing one and an empty token."""
    assert not valid_signature(token, url, params, signature)


def test_the_default_port_may_be_written_or_left_out_on_either_side() -> None:
    """Signed without :443 and checked with it, and the other way round (https and wss)."""
    with_port = "https://mycompany.com:443/myapp.php?foo=1&bar=2"
    assert valid_signature(DOC_TOKEN, with_port, DOC_PARAMS, "0/KCTR6DLpKmkAf8muzZqo1nDgQ=")
    assert valid_signature(DOC_TOKEN, DOC_URL, DOC_PARAMS, DOC_SIGNED_WITH_PORT)
    signed = compute_signature(TOKEN, "wss://bot.example.com/twilio", {})
    assert valid_signature(TOKEN, "wss://bot.example.com:443/twilio", {}, signed)
    http = compute_signature(TOKEN, "http://bot.example.com:80/twiml", {})
    assert valid_signature(TOKEN, "http://bot.example.com/twiml", {}, http)


def test_a_non_default_port_is_never_dropped() -> None:
    """Signed for :443 (or none), checked at :8443: another server, refused."""
    signed = compute_signature(TOKEN, "https://bot.example.com/twiml", {})
    assert not valid_signature(TOKEN, "https://bot.example.com:8443/twiml", {}, signed)
    assert url_variants("https://bot.example.com:8443/twiml") == ("https://bot.example.com:8443/twiml",)


def test_url_variants_change_the_authority_only() -> None:
    """The port is added or removed; path, query and any odd characters stay as they were."""
    assert url_variants("https://u@Host.example/a%2Fb?x=1&y=") == (
        "https://u@Host.example/a%2Fb?x=1&y=",
        "https://u@Host.example:443/a%2Fb?x=1&y=",
    )
    assert url_variants("wss://[::1]:443/twilio") == ("wss://[::1]:443/twilio", "wss://[::1]/twilio")
    assert url_variants("not a url") == ("not a url",)
    assert url_variants("https://host:99999/") == ("https://host:99999/",)


def test_the_signature_module_imports_no_io() -> None:
    """A fresh interpreter importing it loads no asyncio, sockets or web framework."""
    forbidden = ("asyncio", "socket", "starlette", "websockets", "pipecat")
    code = (
        "import sys, transports.twilio.signature\n"
        f"print(','.join(m for m in {forbidden!r} if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


# -- through the real endpoints ---------------------------------------------------------------

PUBLIC_HOST = "bot.example.com"
TWIML_URL = f"https://{PUBLIC_HOST}/twiml"
STREAM_URL = f"wss://{PUBLIC_HOST}/twilio"
FORM_BODY = "CallSid=CA9&From=%2B15550001111&To=%2B15550002222&CallerName="


class RecordingBot:
    """Records each call it is given, then returns (the endpoint then closes the stream)."""

    def __init__(self) -> None:
        self.calls: list[TwilioCall] = []

    async def __call__(self, call: TwilioCall) -> None:
        self.calls.append(call)


@asynccontextmanager
async def twilio_server(settings: TwilioSettings) -> AsyncIterator[tuple[str, RecordingBot]]:
    """The Twilio routes alone on 127.0.0.1; yields ``host:port`` and the bot."""
    bot = RecordingBot()
    app = Starlette(routes=twilio_routes(bot, settings))
    async with serving(app, ServerSettings(), host="127.0.0.1", port=0) as (host, port):
        yield f"{host}:{port}", bot


def post(url: str, body: str, headers: dict[str, str]) -> tuple[int, str]:
    """POST a form; (status, body), HTTP errors included."""
    request = urllib.request.Request(
        url, data=body.encode(), headers={"Content-Type": "application/x-www-form-urlencoded", **headers}
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as resp:
            return int(resp.status), resp.read().decode()
    except urllib.error.HTTPError as exc:
        return int(exc.code), exc.read().decode()


async def stream_once(url: str, headers: dict[str, str]) -> int | None:
    """Open a stream, begin it as Twilio does, and wait for the server to end it; its close code."""
    async with connect(url, additional_headers=headers) as ws:
        await Carrier(ws).begin()
        await asyncio.wait_for(ws.wait_closed(), 10)
        return ws.close_code


async def refused_status(url: str, headers: dict[str, str]) -> int:
    """The HTTP status of a WebSocket handshake the server refuses."""
    with pytest.raises(InvalidStatus) as refusal:
        async with connect(url, additional_headers=headers):
            pass
    return refusal.value.response.status_code


def signature_header(url: str, params: Params) -> dict[str, str]:
    return {"X-Twilio-Signature": compute_signature(TOKEN, url, params)}


def test_a_signed_webhook_gets_twiml_and_an_unsigned_or_forged_one_403(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """With auth_token: the right signature gets TwiML; none, a forged one, another URL's get 403."""
    caplog.set_level(logging.INFO, logger="warmline.twilio")
    form = {"CallSid": "CA9", "From": "+15550001111", "To": "+15550002222", "CallerName": ""}
    forged = {"X-Twilio-Signature": compute_signature("not-the-token", TWIML_URL, form)}
    results: dict[str, tuple[int, str]] = {}

    async def run() -> None:
        async with twilio_server(TwilioSettings(auth_token=TOKEN, public_host=PUBLIC_HOST)) as (address, _):
            url = f"http://{address}/twiml"
            results["signed"] = await asyncio.to_thread(
                post, url, FORM_BODY, signature_header(TWIML_URL, form)
            )
            results["unsigned"] = await asyncio.to_thread(post, url, FORM_BODY, {})
            results["forged"] = await asyncio.to_thread(post, url, FORM_BODY, forged)
            without_blank = {k: v for k, v in form.items() if v}  # Twilio signs the empty field too
            results["partial"] = await asyncio.to_thread(
                post, url, FORM_BODY, signature_header(TWIML_URL, without_blank)
            )

    asyncio.run(run())
    status, text = results["signed"]
    assert status == 200 and f'<Stream url="{STREAM_URL}">' in text and 'value="+15550001111"' in text
    for name in ("unsigned", "forged", "partial"):
        assert results[name] == (403, "invalid Twilio signature\n"), name
    refusals = [r for r in caplog.records if r.name == "warmline.twilio"]
    assert [r.levelno for r in refusals] == [logging.WARNING] * 3
    for record in refusals:
        assert "invalid Twilio signature" in record.getMessage()
        assert TOKEN not in record.getMessage() and forged["X-Twilio-Signature"] not in record.getMessage()


def test_a_signed_stream_is_served_and_an_unsigned_one_refused_before_the_upgrade(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A valid handshake signature reaches the bot; none or a wrong one: HTTP 403, no bot, one warning."""
    caplog.set_level(logging.INFO, logger="warmline.twilio")

    async def run() -> tuple[int | None, int, int, int]:
        async with twilio_server(TwilioSettings(auth_token=TOKEN, public_host=PUBLIC_HOST)) as (address, bot):
            url = f"ws://{address}/twilio"
            signed = await stream_once(url, signature_header(STREAM_URL, {}))
            unsigned = await refused_status(url, {})
            wrong = await refused_status(url, signature_header(f"wss://{PUBLIC_HOST}/other", {}))
            return signed, unsigned, wrong, len(bot.calls)

    signed, unsigned, wrong, calls = asyncio.run(run())
    assert signed == 1000 and calls == 1  # served: the bot returned and the endpoint closed normally
    # refused by an ASGI close (1008) before accept, which the server sends as an HTTP 403 denial
    assert unsigned == 403 and wrong == 403
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 2 and all("invalid Twilio signature" in w for w in warnings)


def test_without_public_host_the_url_is_the_request_s_own() -> None:
    """Host header and X-Forwarded-Proto (or the request's scheme) make the URL; :443 may be written."""

    async def run() -> tuple[list[int], list[int | None], int]:
        async with twilio_server(TwilioSettings(auth_token=TOKEN)) as (address, bot):
            proxied = {"Host": PUBLIC_HOST, "X-Forwarded-Proto": "https"}
            with_port = {"Host": f"{PUBLIC_HOST}:443", "X-Forwarded-Proto": "https"}
            webhooks = [
                ("/twiml?token=s3cret", {**proxied, **signature_header(f"{TWIML_URL}?token=s3cret", {})}),
                ("/twiml", {**with_port, **signature_header(TWIML_URL, {})}),
                # Host 127.0.0.1:port and scheme http: not the URL that was signed
                ("/twiml", signature_header(TWIML_URL, {})),
            ]
            statuses = [
                (await asyncio.to_thread(post, f"http://{address}{path}", "", headers))[0]
                for path, headers in webhooks
            ]
            url = f"ws://{address}/twilio"
            forwarded = {"X-Forwarded-Proto": "https", **signature_header(f"wss://{address}/twilio", {})}
            streams = [
                await stream_once(url, signature_header(url, {})),
                await stream_once(url, forwarded),
            ]
            return statuses, streams, len(bot.calls)

    statuses, streams, calls = asyncio.run(run())
    assert statuses == [200, 200, 403]
    assert streams == [1000, 1000] and calls == 2


def test_without_an_auth_token_nothing_is_checked() -> None:
    """No auth_token: unsigned webhooks and streams are served exactly as before."""

    async def run() -> tuple[tuple[int, str], int | None, int]:
        async with twilio_server(TwilioSettings(public_host=PUBLIC_HOST)) as (address, bot):
            body = "CallSid=CA9&From=&To=%2B15550002222"
            twiml = await asyncio.to_thread(post, f"http://{address}/twiml", body, {})
            stream = await stream_once(f"ws://{address}/twilio", {"X-Twilio-Signature": "junk"})
            return twiml, stream, len(bot.calls)

    (status, text), stream, calls = asyncio.run(run())
    assert status == 200 and 'value="+15550002222"' in text
    assert 'name="From"' not in text  # a blank field is still not forwarded
    assert stream == 1000 and calls == 1


# -- the agent server and its command line ----------------------------------------------------


def test_the_agent_keeps_the_twilio_auth_token_out_of_its_repr_and_enforces_it(
    hibari_backend: Backend,
) -> None:
    """AgentSettings hides the token in repr; its app refuses an unsigned webhook and takes a signed one."""
    settings = AgentSettings(twilio_auth_token=TOKEN, public_host=PUBLIC_HOST)
    assert TOKEN not in repr(settings) and "twilio_auth_token" not in repr(settings)
    results: dict[str, tuple[int, str]] = {}

    async def run() -> None:
        async with EngineRuntime(hibari_backend, workers=1) as runtime:
            app = create_agent_app(runtime, settings, parts=AgentParts(runtime=runtime))
            async with serving(app, ServerSettings(), host="127.0.0.1", port=0) as (host, port):
                url = f"http://{host}:{port}/twiml"
                results["unsigned"] = await asyncio.to_thread(post, url, "CallSid=CA1", {})
                signed = signature_header(TWIML_URL, {"CallSid": "CA1"})
                results["signed"] = await asyncio.to_thread(post, url, "CallSid=CA1", signed)

    asyncio.run(run())
    assert results["unsigned"][0] == 403
    assert results["signed"][0] == 200 and "/twilio" in results["signed"][1]


def test_warmline_call_reads_the_twilio_auth_token_from_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """$TWILIO_AUTH_TOKEN reaches AgentSettings (no flag takes it); unset or empty, it stays None."""
    served: list[AgentSettings] = []

    async def fake_serve(
        s: AgentSettings, *, backend: str, workers: int, drain_s: float, **options: object
    ) -> None:
        del backend, workers, drain_s
        served.append(s)

    monkeypatch.setattr("agent.server.serve_agent", fake_serve)
    monkeypatch.setattr(call_cli, "_quiet_pipecat", lambda *, verbose: None)
    for name in ("WARMLINE_STT", "WARMLINE_VAD", "WARMLINE_TOKEN", "OPENAI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("TWILIO_AUTH_TOKEN", TOKEN)
    assert main(["call", "--port", "0"]) == 0
    monkeypatch.setenv("TWILIO_AUTH_TOKEN", "")
    assert main(["call", "--port", "0"]) == 0
    monkeypatch.delenv("TWILIO_AUTH_TOKEN")
    assert main(["call", "--port", "0"]) == 0
    assert [s.twilio_auth_token for s in served] == [TOKEN, None, None]
    assert TOKEN not in repr(served[0])
