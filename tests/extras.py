"""Why a test of an optional extra is skipped, said once for every file that needs the extra."""

NO_TORCH = (
    "torch and pocket-tts (the `pocket` extra) are not installed; CI runs Python 3.12 and 3.13 "
    "without them (docs/DEVELOPING.md: Python versions)"
)
