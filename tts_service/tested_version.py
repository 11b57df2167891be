"""The version check every ``*_compat.py`` module makes: is the installed library the tested line?

    PIPECAT = TestedVersion("pipecat-ai", "1.14", contract_test="tests/test_pipecat_compat.py")
    PIPECAT.check()          # True on 1.14.x; else one warning per process, and False

A compat module reaches into another library's private names; on a release it was not written
against, those may have moved. The check does not refuse to run (the library may well still
fit): it says so once, naming the contract test that tells.
"""

from __future__ import annotations

import logging
import threading
from importlib.metadata import PackageNotFoundError, version

log = logging.getLogger("warmline.compat")


class TestedVersion:
    """A distribution and the release line (``major.minor``) its compat module was written for."""

    def __init__(self, distribution: str, tested: str, *, contract_test: str) -> None:
        self.distribution = distribution
        self.tested = tested
        self.contract_test = contract_test
        self._warned = False
        self._lock = threading.Lock()

    @property
    def installed(self) -> str | None:
        """The installed version, or None when the distribution is not installed."""
        try:
            return version(self.distribution)
        except PackageNotFoundError:
            return None

    def check(self) -> bool:
        """True on the tested release line; otherwise logs one warning (per process) and returns False."""
        installed = self.installed
        tested = installed is not None and installed.split(".")[:2] == self.tested.split(".")
        with self._lock:
            if tested or self._warned:
                return tested
            self._warned = True
        log.warning(
            "%s %s: Warmline's compat module was written against %s.x; run %s to check it still holds",
            self.distribution,
            installed or "(not installed)",
            self.tested,
            self.contract_test,
        )
        return False


__all__ = ["TestedVersion"]
