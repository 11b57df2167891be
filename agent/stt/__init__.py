"""Speech recognition for the voice agent: offline recognizers as Pipecat STT services.

``choice`` (which recognizer a call gets: ``--stt`` and its fallbacks), ``utterance`` (what the
offline recognizers share: one utterance per VAD segment, the pre-roll, 16 kHz, the worker thread,
the silence check), ``tiny`` and ``tiny_model`` (whisper tiny.en, the default: the service, which
also reads speech over the bot as it goes on, and the model, its words' probabilities and the odds
of an unfinished ending), ``sphinx`` and ``sphinx_decoders`` (pocketsphinx: the service, and its
decoders built, settled, restarted and pooled), ``shared_whisper`` (Pipecat's local Whisper with one
model per process).

``agent.stt`` was the pocketsphinx module before this folder: its names still import from here, with
a ``DeprecationWarning`` (import them from ``agent.stt.sphinx``).
"""

from __future__ import annotations

import importlib
import warnings

#: what ``agent.stt`` exported when it was the pocketsphinx module
_MOVED_TO_SPHINX = frozenset(
    {
        "DECODER_SAMPLE_RATE",
        "GENERAL_MODEL_OPTIONS",
        "INTERIM_EVERY_S",
        "NARROWBAND_CMN_INIT",
        "SILENCE_PEAK",
        "WIDEBAND_CMN_INIT",
        "DecoderFactory",
        "DecoderPool",
        "PocketsphinxSTTService",
        "build_decoder",
        "clean_hypothesis",
        "grammar_of",
        "in_grammar",
        "normalize_phrase",
        "restart",
    }
)


def __getattr__(name: str) -> object:
    """The old module's names, imported lazily (pocketsphinx and Pipecat load only when asked for)."""
    if name not in _MOVED_TO_SPHINX:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    warnings.warn(f"agent.stt.{name} moved to agent.stt.sphinx.{name}", DeprecationWarning, stacklevel=2)
    return getattr(importlib.import_module("agent.stt.sphinx"), name)
