"""The hibari backend: the embedded default voice, a tiny ONNX unit synthesizer (24 kHz, CPU).

One ``HibariBackend`` is the warm model shared by every session: one ONNX session per voice,
loaded on first use, and one G2P (text to phonemes) per accent, guarded by a lock because it is
not known to be thread-safe. The ONNX run and the DSP run outside that lock.

hibari's graph computes per-phoneme durations internally; we expose that tensor as an extra
graph output, which gives word marks and the speech span for free: ``sum(durations) * 600`` is
exactly the audio length. That tensor and the other hibari internals this module relies on live
in ``hibari_compat``.

A unit's buffers are kept off glibc's heap (``malloc``), so what a long unit took goes back
to the system when it ends; no model input passes ``MAX_PHONEMES`` (``_bounded``).

This module must never download anything (voices that are neither bundled nor already cached are
refused with ``UnknownVoiceError``), never load a model in a constructor, and never touch asyncio.
"""

from __future__ import annotations

import functools
import json
import os
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
from hibari import dsp
from hibari.tts import ASSETS, MAX_PHONEMES, Hibari
from hibari.voices import VOICES, cache_dir, voice_path

from tts_service.backends.hibari.hibari_compat import CLAUSE_SPLIT, open_duration_session
from tts_service.backends.hibari.malloc import keep_large_buffers_off_the_heap
from tts_service.backends.word_marks import place_words
from tts_service.dsp import fade_in, fade_out
from tts_service.engine.ports import Capabilities, UnitAudio, VoiceState
from tts_service.errors import (
    InvalidInputError,
    ModelNotAvailableError,
    SynthesisError,
    UnknownVoiceError,
)

SAMPLE_RATE = 24000
#: one duration unit of the model: 25 ms at 24 kHz
UNIT_SAMPLES = 600
#: speech may begin a unit or two before the lead pad ends, so keep this much before it
LEAD_MARGIN_SAMPLES = 2 * UNIT_SAMPLES
#: raised-cosine fade at the cuts between chunks of one unit (5 ms); the cuts fall in near-silence,
#: the fade only makes sure a residual sample never clicks
JOIN_FADE_SAMPLES = 120
WORD_CACHE_SIZE = 4096

_PAD_ID = 0
_SPACE = " "
#: phoneme characters that are pauses, not sounds (hibari's G2P punctuation)
_PAUSE_CHARS = ';:,.!?—…"()“”'
# a number, currency, a time, an abbreviation and an unknown word: loads every lexicon and the OOV net
_WARMUP_TEXT = "Dr. Quibbleworth paid $12.50 for 3 snorkelgrams at 7:30 pm."


class HibariVoiceState(VoiceState):
    """A session's hibari voice. hibari keeps no conversation prefix, so there is nothing else."""


@dataclass(frozen=True, slots=True)
class _Chunk:
    """One rendered hibari chunk: its ids, their durations in units, its audio."""

    ids: list[int]
    durations: npt.NDArray[np.int64]
    samples: npt.NDArray[np.float32]


class _Frontend:
    """hibari's G2P for one accent, serialized by a lock, with a bounded cache of per-word counts."""

    def __init__(self, british: bool, vocab: dict[str, int]) -> None:
        from hibari.g2p import G2P

        self._g2p: Any = G2P(british=british)
        self._lock = threading.Lock()
        self.vocab = vocab
        self.pause_ids = frozenset(vocab[c] for c in _PAUSE_CHARS if c in vocab)
        self.space_id = vocab[_SPACE]
        self.warm = False
        self._count = functools.lru_cache(maxsize=WORD_CACHE_SIZE)(self._count_uncached)

    def phonemize(self, text: str) -> list[str]:
        """Phoneme strings, one per hibari chunk, exactly as ``Hibari.phonemize`` returns them."""
        with self._lock:
            return self._phonemize_locked(text)

    def word_counts(self, words: Sequence[str]) -> list[int]:
        """How many spoken phoneme words each source word reads as on its own."""
        with self._lock:
            return [self._count(w) for w in words]

    def warm_up(self) -> None:
        """Pay the lazy loading (lexicons, OOV net) now rather than on a caller's first unit."""
        self.phonemize(_WARMUP_TEXT)
        self.warm = True

    def ids(self, phonemes: str) -> list[int]:
        return [_PAD_ID, *[self.vocab[c] for c in phonemes if c in self.vocab], _PAD_ID]

    def spoken_words(self, ids: Sequence[int]) -> list[tuple[int, int]]:
        """(first, last) id index of each phoneme word that holds a sound, pauses trimmed off."""
        out: list[tuple[int, int]] = []
        first = -1
        last = -1
        for i, x in enumerate(ids):
            if x in (_PAD_ID, self.space_id):
                if first >= 0:
                    out.append((first, last))
                first = last = -1
            elif x not in self.pause_ids:
                if first < 0:
                    first = i
                last = i
        if first >= 0:
            out.append((first, last))
        return out

    def _phonemize_locked(self, text: str) -> list[str]:
        chunks: list[str] = []
        for sentence in Hibari.split_sentences(text):
            ps: str = self._g2p(sentence)
            if not ps:
                continue
            if len(ps) <= MAX_PHONEMES:
                chunks.append(ps)
                continue
            cur = ""
            for part in CLAUSE_SPLIT.split(ps):
                if cur and len(cur) + len(part) + 1 > MAX_PHONEMES:
                    chunks.append(cur)
                    cur = part
                else:
                    cur = f"{cur} {part}" if cur else part
            if cur:
                chunks.append(cur)
        return [piece for chunk in chunks for piece in _bounded(chunk)]

    def _count_uncached(self, word: str) -> int:
        return sum(len(self.spoken_words(self.ids(ps))) for ps in self._phonemize_locked(word))


@dataclass(frozen=True, slots=True)
class _VoiceModel:
    session: Any
    frontend: _Frontend


def _phoneme_symbols() -> frozenset[str]:
    """The symbols hibari's model reads (misaki's), punctuation and space left out: what a lexicon may use."""
    with open(os.path.join(ASSETS, "vocab.json"), encoding="utf-8") as f:
        return frozenset(str(k) for k in json.load(f) if str(k).strip() and str(k) not in ';:,.!?—…"()“”')


class HibariBackend:
    """hibari behind the ``UnitBackend`` protocol. Call ``load()`` once before serving."""

    name = "hibari"
    capabilities = Capabilities(
        sample_rate=SAMPLE_RATE,
        frame_native=False,
        incremental_text=False,
        word_times=True,
        context_limit=None,
        own_normalizer=True,
        speaker_tags=False,
        speed_range=(0.5, 2.0),
        phoneme_symbols=_phoneme_symbols(),
    )
    default_voice = "heart"

    def __init__(self, *, threads: int = 1) -> None:
        if threads < 1:
            raise InvalidInputError(f"threads must be at least 1, got {threads}")
        self._threads = threads
        self._load_lock = threading.Lock()
        self._vocab: dict[str, int] | None = None
        self._frontends: dict[bool, _Frontend] = {}
        self._models: dict[str, _VoiceModel] = {}

    # -- loading ---------------------------------------------------------------------------------

    def load(self) -> None:
        """Load the default voice, warm its G2P and run one inference, so the first unit is fast."""
        model = self._model(self.default_voice)
        ids = model.frontend.ids(model.frontend.phonemize("Hello.")[0])
        self._render(model, ids, 1.0, np.random.default_rng(0))

    def is_warm(self, voice: str | None = None) -> bool:
        """Whether ``voice`` (default: the default voice) is loaded and its G2P has been warmed."""
        model = self._models.get(voice or self.default_voice)
        return model is not None and model.frontend.warm

    def voices(self) -> tuple[str, ...]:
        """Voices usable here: bundled in hibari's wheel or already in hibari's cache directory."""
        usable = []
        for name in VOICES:
            try:
                voice_path(name, download_missing=False)
            except FileNotFoundError:
                continue
            usable.append(name)
        return tuple(usable)

    def new_voice_state(self, voice: str, seed: int | None = None) -> HibariVoiceState:
        """A state for ``voice``; loads that voice's model on its first use. Raises UnknownVoiceError."""
        self._model(voice)
        return HibariVoiceState(voice)

    def reset_context(self, state: VoiceState) -> None:
        """Nothing to do: hibari synthesizes each unit on its own and keeps no conversation prefix."""

    def phonemize(self, text: str, voice: str = "heart") -> list[str]:
        """hibari's phoneme strings for ``text``, one per chunk (for tests and benchmarks)."""
        return self._model(voice).frontend.phonemize(text)

    def _model(self, voice: str) -> _VoiceModel:
        model = self._models.get(voice)
        if model is not None:
            return model
        with self._load_lock:
            model = self._models.get(voice)
            if model is None:
                model = self._load_voice(voice)
                self._models[voice] = model
        return model

    def _load_voice(self, voice: str) -> _VoiceModel:
        keep_large_buffers_off_the_heap()  # a unit's memory goes back when it ends (see malloc.py)
        try:
            path = voice_path(voice, download_missing=False)
        except (ValueError, FileNotFoundError) as exc:
            raise _unknown_voice_error(voice, self.voices()) from exc
        try:
            session = open_duration_session(path, self._threads)
        except Exception as exc:
            raise ModelNotAvailableError(
                f"hibari voice {voice!r} could not be loaded from {path} ({exc}); delete the file and "
                f"fetch it again"
            ) from exc
        british = bool(VOICES[voice]["british"])
        frontend = self._frontends.get(british)
        if frontend is None:
            frontend = _Frontend(british, self._load_vocab())
            frontend.warm_up()
            self._frontends[british] = frontend
        return _VoiceModel(session, frontend)

    def _load_vocab(self) -> dict[str, int]:
        if self._vocab is None:
            with open(os.path.join(ASSETS, "vocab.json"), encoding="utf-8") as f:
                self._vocab = {str(k): int(v) for k, v in json.load(f).items()}
        return self._vocab

    # -- synthesis -------------------------------------------------------------------------------

    def synthesize(self, state: VoiceState, text: str, *, speed: float, seed: int | None) -> UnitAudio:
        """Audio of one speakable unit with its word marks and speech span; raises SynthesisError.

        A unit hibari splits into several chunks (sentences, clauses of a very long sentence,
        and past ``MAX_PHONEMES`` without a clause, pieces cut at spaces: see ``_bounded``) is
        rendered chunk by chunk with one random generator, so a one-chunk unit is bit-exact
        with ``hibari.Hibari()(text, seed=seed)``. Between chunks the lead pad of the next chunk
        (down to the same margin as ``speech_start``) and the final pad of the previous one are
        cut, with a 5 ms fade at each cut, so the join keeps only the model's own pause (the
        closing punctuation's duration) rather than 0.3-0.6 s of pads. The first chunk's lead and
        the last chunk's tail are kept: the engine trims them with ``speech_start``/``speech_end``.
        Chunks that read as punctuation only are skipped.
        """
        if not isinstance(state, HibariVoiceState):
            raise InvalidInputError(f"not a hibari voice state: {type(state).__name__}")
        rate = self.capabilities.checked_speed(speed)
        model = self._model(state.voice)
        frontend = model.frontend
        words = text.split()
        try:
            id_chunks = [frontend.ids(ps) for ps in frontend.phonemize(text)]
            counts = frontend.word_counts(words)
        except Exception as exc:
            raise SynthesisError(f"hibari could not read the text: {exc}") from exc
        id_chunks = [ids for ids in id_chunks if frontend.spoken_words(ids)]
        if not id_chunks:
            return UnitAudio(np.zeros(0, np.float32), (), 0, 0)
        rng = np.random.default_rng(seed)
        chunks = [self._render(model, ids, rate, rng) for ids in id_chunks]
        return _assemble(chunks, frontend, words, counts)

    def _render(self, model: _VoiceModel, ids: list[int], speed: float, rng: np.random.Generator) -> _Chunk:
        feeds = {"ids": np.asarray([ids], np.int64), "speed": np.asarray([speed], np.float32)}
        try:
            *outputs, durations = model.session.run(None, feeds)
            samples = dsp.synth(*(o[0] for o in outputs), rng)
        except Exception as exc:
            raise SynthesisError(f"hibari failed on {len(ids)} phoneme ids: {exc}") from exc
        durations = np.asarray(durations, np.int64).reshape(-1)
        # The durations come from inside the graph; if a different hibari build moved them, say so
        # loudly rather than publish word marks that do not match the audio.
        if len(durations) != len(ids) or int(durations.sum()) * UNIT_SAMPLES != len(samples):
            raise SynthesisError(
                f"hibari durations do not match its audio ({int(durations.sum())} units for "
                f"{len(samples)} samples, {len(durations)} durations for {len(ids)} ids)"
            )
        return _Chunk(ids, durations, np.asarray(samples, np.float32))


def _bounded(phonemes: str, limit: int = MAX_PHONEMES) -> list[str]:
    """``phonemes`` in pieces of at most ``limit`` characters, cut at spaces where it can be.

    hibari cuts an over-long sentence only after clause punctuation, so a sentence without any
    (a run of spelled capitals, a long list of words) reached the model whole: its memory and
    time grow with the input's length. A piece without a space in ``limit`` characters (one
    spelled-out word) is cut where the limit falls.
    """
    pieces: list[str] = []
    while len(phonemes) > limit:
        cut = phonemes.rfind(_SPACE, 1, limit + 1)
        if cut <= 0:
            cut = limit
        pieces.append(phonemes[:cut].rstrip())
        phonemes = phonemes[cut:].lstrip()
    if phonemes:
        pieces.append(phonemes)
    return pieces


def _unknown_voice_error(voice: str, usable: Sequence[str]) -> UnknownVoiceError:
    """The error for a voice not usable here: the voices that are in its message, and how to get
    another in its operator hint (which names this machine's cache directory, so never goes out)."""
    others = [v for v in VOICES if v not in usable]
    hint = (
        f"Other hibari voices ({', '.join(others)}) are downloaded on first use, which Warmline never "
        f"does: run `hibari --voice NAME 'Hello.'` once on a machine with internet access, or copy the "
        f"voice file into {cache_dir()} (HIBARI_HOME overrides it)."
        if others
        else ""
    )
    message = f"hibari voice {voice!r} is not available here; available: {', '.join(usable)}"
    return UnknownVoiceError(message, operator_hint=hint)


def _assemble(chunks: list[_Chunk], frontend: _Frontend, words: list[str], counts: list[int]) -> UnitAudio:
    """Join rendered chunks (see ``HibariBackend.synthesize``) and place the source words."""
    pieces: list[npt.NDArray[np.float32]] = []
    spans: list[tuple[int, int]] = []
    offset = 0
    speech_start = speech_end = 0
    last = len(chunks) - 1
    for k, chunk in enumerate(chunks):
        d = chunk.durations
        edges = np.concatenate([[0], np.cumsum(d)]) * UNIT_SAMPLES
        total = len(chunk.samples)
        chunk_start = max(0, int(d[0]) * UNIT_SAMPLES - LEAD_MARGIN_SAMPLES)
        chunk_end = total - int(d[-1]) * UNIT_SAMPLES
        keep_from = 0 if k == 0 else chunk_start
        keep_to = total if k == last else chunk_end
        piece = chunk.samples[keep_from:keep_to].copy()
        if k > 0:
            fade_in(piece, JOIN_FADE_SAMPLES)
        if k < last:
            fade_out(piece, JOIN_FADE_SAMPLES)
        shift = offset - keep_from
        if k == 0:
            speech_start = chunk_start
        if k == last:
            speech_end = chunk_end + shift
        for first, final in frontend.spoken_words(chunk.ids):
            a = min(max(int(edges[first]), keep_from), keep_to) + shift
            b = min(max(int(edges[final + 1]), keep_from), keep_to) + shift
            spans.append((a, b))
        pieces.append(piece)
        offset += len(piece)
    samples = np.concatenate(pieces) if len(pieces) > 1 else pieces[0]
    return UnitAudio(samples, place_words(words, counts, spans), speech_start, speech_end)
