"""Bind policy, token and Origin checks, and the command-rate bucket, as pure functions."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent.cli import main
from transports.security import (
    INSECURE_ENV,
    TOKEN_ENV,
    InsecureBindError,
    TokenBucket,
    check_bind,
    insecure_from_env,
    is_loopback,
    origin_ok,
    request_token,
    token_ok,
)
from transports.ws.settings import ServerSettings
from tts_service.engine.clock import FakeClock
from tts_service.errors import InvalidInputError


@pytest.mark.parametrize(
    ("host", "loopback"),
    [("127.0.0.1", True), ("127.1.2.3", True), ("::1", True), ("localhost", True), ("0.0.0.0", False),
     ("192.168.1.5", False), ("::", False), ("example.com", False)],
)  # fmt: skip
def test_loopback_addresses_are_recognised(host: str, loopback: bool) -> None:
    """Only addresses this machine alone can reach count as loopback."""
    assert is_loopback(host) is loopback


def test_public_bind_needs_a_token_or_insecure() -> None:
    """0.0.0.0 without a token is refused; a token or --insecure allows it; loopback always is."""
    check_bind("127.0.0.1", token=None, insecure=False)
    check_bind("0.0.0.0", token="s3cret", insecure=False)
    check_bind("0.0.0.0", token=None, insecure=True)
    with pytest.raises(InsecureBindError) as info:
        check_bind("0.0.0.0", token=None, insecure=False)
    assert info.value.code == "insecure_bind"


def test_serve_refuses_a_public_address_before_loading_anything(capsys: pytest.CaptureFixture[str]) -> None:
    """`warmline serve --host 0.0.0.0` exits 2 with one line, without starting a server."""
    assert main(["serve", "--host", "0.0.0.0", "--port", "0"]) == 2
    assert "insecure_bind" in capsys.readouterr().err


def test_the_docker_image_refuses_to_serve_without_a_token_unless_told_to(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The image's CMD, run without $WARMLINE_TOKEN, exits 2 naming both ways out; the opt-in is
    explicit ($WARMLINE_INSECURE=1 or --insecure) and a garbled one is refused, not taken as yes."""
    dockerfile = (Path(__file__).resolve().parent.parent / "Dockerfile").read_text()
    (cmd_line,) = [line for line in dockerfile.splitlines() if line.startswith("CMD ")]
    cmd = json.loads(cmd_line.removeprefix("CMD "))
    assert cmd[:2] == ["warmline", "serve"] and "--insecure" not in cmd
    monkeypatch.delenv(TOKEN_ENV, raising=False)
    monkeypatch.delenv(INSECURE_ENV, raising=False)
    assert main([*cmd[1:], "--port", "0"]) == 2
    err = capsys.readouterr().err
    assert "insecure_bind" in err and TOKEN_ENV in err and f"{INSECURE_ENV}=1" in err
    monkeypatch.setenv(INSECURE_ENV, "maybe")
    assert main([*cmd[1:], "--port", "0"]) == 2
    assert INSECURE_ENV in capsys.readouterr().err
    assert insecure_from_env({INSECURE_ENV: "1"}) and not insecure_from_env({INSECURE_ENV: "0"})
    assert not insecure_from_env({})


def test_token_comes_from_bearer_header_or_query() -> None:
    """Bearer header first, then ?token=; other schemes are ignored."""
    assert request_token({"authorization": "Bearer abc"}, {}) == "abc"
    assert request_token({"authorization": "bearer  abc "}, {"token": "q"}) == "abc"
    assert request_token({"authorization": "Basic xyz"}, {"token": "q"}) == "q"
    assert request_token({}, {}) is None


def test_token_comparison() -> None:
    """No configured token lets everyone in; otherwise only the exact token passes."""
    assert token_ok(None, None)
    assert token_ok("s3cret", "s3cret")
    assert not token_ok("s3cret", None)
    assert not token_ok("s3cret", "s3cre")
    assert not token_ok("s3cret", "s3cret\udc80")


def test_origin_policy() -> None:
    """No Origin passes; default is same-origin only; an allow-list or * widens it."""
    assert origin_ok(None, "127.0.0.1:8765", ())
    assert origin_ok("http://127.0.0.1:8765", "127.0.0.1:8765", ())
    assert not origin_ok("http://evil.example", "127.0.0.1:8765", ())
    assert origin_ok("https://app.example/", "127.0.0.1:8765", ["https://app.example"])
    assert not origin_ok("http://127.0.0.1:8765", "127.0.0.1:8765", ["https://app.example"])
    assert origin_ok("http://anything", None, ["*"])
    assert not origin_ok("http://[bad", "x", ())


def test_token_bucket_allows_a_burst_then_the_rate() -> None:
    """burst commands at once, then rate_per_s a second on the injected clock."""
    clock = FakeClock()
    bucket = TokenBucket(rate_per_s=10, burst=3, clock=clock)
    assert [bucket.try_take() for _ in range(4)] == [True, True, True, False]
    clock.advance(0.1)
    assert bucket.try_take()
    assert not bucket.try_take()
    clock.advance(100)
    assert sum(bucket.try_take() for _ in range(10)) == 3  # never more than the burst saved up


def test_settings_are_checked() -> None:
    """Nonsense limits are refused when the settings are made."""
    with pytest.raises(InvalidInputError):
        ServerSettings(max_sessions=0)
    with pytest.raises(InvalidInputError):
        ServerSettings(sample_rate=11025)
    with pytest.raises(InvalidInputError):
        ServerSettings(lead_frames=-1)
