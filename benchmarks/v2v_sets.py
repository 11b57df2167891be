"""The caller sets of ``v2v_bench.py``: what the callers say, and how each one sounds on the line.

    callers = CALLER_SETS["wide"]                  # or "tuned"
    pcm = callers.voice(k).speak(backend, text)    # act k's voice: speed, pitch, level, line noise

Two sets, kept apart so that figures never come only from what the turn-taking was tuned on:

* ``tuned``: the sentences the turn-taking was developed against (``v2v_callers``' original
  acts), in hibari's voice as it is: one speed, one pitch, a clean line. Tune on this one.
* ``wide``: other sentences, none of them in the demo's grammar, written apart from the
  feature (a restaurant's callers: bookings, allergies, parking), and every act in a voice of its
  own: speed 0.85-1.2, pitch -2.5..+2.5 semitones, level -4..-18 dB, and line noise (300-3400 Hz
  hiss at 18-35 dB SNR), each drawn from a seed of the act. Its 18 hesitations are whole
  sentences cut at a word boundary (``Voice.cut``, on the TTS's word marks) with 0.6-0.9 s of
  silence put in, so the first part keeps the rising or level pitch of a sentence that goes on;
  they stop on every kind of word a sentence cannot end on (articles, possessives, prepositions,
  conjunctions, auxiliaries and modals, relative pronouns), and three voices take them in turn:
  hibari's, hibari's a fifth down, and Piper's joe (a male US voice; ``v2v_bench`` loads the
  cast). Half its 36 acts are hesitations. The sentences were written before any cue was tuned
  on them and are never changed. Report this one; never tune on it.

Both are said over the same simulated carrier (mu-law at 8 kHz), so the codec is on every act.
Benchmark scaffolding: never imported by the package.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import soxr
from scipy.signal import butter, sosfilt

from tts_service.dsp import float_to_pcm16, pcm16_to_float
from tts_service.engine.ports import Backend
from tts_service.engine.types import WordMark
from tts_service.speech import spoken_marked

RATE = 8000
#: a word's mark shorter than this (25 ms) is one the TTS did not place on its own
MIN_MARK = 200


@dataclass(frozen=True, slots=True)
class Voice:
    """How one act sounds: hibari at ``speed``, shifted by ``semitones``, at ``gain_db``, over a
    line with hiss ``snr_db`` below the speech (None: a clean line)."""

    speed: float = 1.0
    semitones: float = 0.0
    gain_db: float = 0.0
    snr_db: float | None = None
    seed: int = 0
    #: whose voice: a key of the cast (``v2v_bench``: "hibari", "hibari-low", "joe")
    speaker: str = "hibari"

    def speak(self, backend: Backend, text: str) -> np.ndarray:
        """``text`` in this voice over its line, as int16 samples at 8 kHz."""
        return self.on_line(self.clean(backend, text))

    def clean(self, backend: Backend, text: str) -> np.ndarray:
        """``text`` in this voice before the line's noise: float samples at 8 kHz (hibari's own
        randomness seeded too). Where the caller's voice is, is judged on these."""
        return self.marked(backend, text)[0]

    def marked(self, backend: Backend, text: str) -> tuple[np.ndarray, tuple[WordMark, ...]]:
        """``clean``'s samples and where each word of ``text`` lies in them (the TTS's marks)."""
        pitch = 2.0 ** (self.semitones / 12.0)
        # rendered at speed / pitch, then resampled by the pitch: the pitch moves and the speed
        # comes out as asked (a resampled voice plays faster by the factor it is raised by)
        pcm, marks = spoken_marked(backend, text, RATE, seed=self.seed, speed=self.speed / pitch)
        samples = pcm16_to_float(pcm)
        if abs(pitch - 1.0) > 1e-6:
            samples = np.asarray(soxr.resample(samples, RATE, RATE / pitch, quality="HQ"), np.float32)
            marks = tuple(
                WordMark(m.word, round(m.start_sample / pitch), round(m.end_sample / pitch)) for m in marks
            )
        return samples * np.float32(10.0 ** (self.gain_db / 20.0)), marks

    def cut(self, backend: Backend, first: str, pause_s: float, rest: str) -> np.ndarray:
        """The whole sentence ``first rest`` said in one breath, cut after ``first``'s last word
        with ``pause_s`` of silence put in: the first part keeps the rising or level pitch of a
        sentence that goes on, as a person's does when they stop to think (clean float samples).
        The cut falls at the quietest 10 ms between the two words' marks."""
        samples, marks = self.marked(backend, f"{first} {rest}")
        n = len(first.split())
        if len(marks) != len(f"{first} {rest}".split()):
            raise ValueError(f"the TTS marked {len(marks)} words in {first!r} + {rest!r}")
        a, b = marks[n - 1], marks[n]
        if min(a.end_sample - a.start_sample, b.end_sample - b.start_sample) < MIN_MARK:
            # the TTS read the two words as one (espeak joins a function word to its neighbour):
            # the boundary is looked for where their letters put it, 60 ms either side
            start, end = min(a.start_sample, b.start_sample), max(a.end_sample, b.end_sample)
            at = start + (end - start) * len(a.word) // (len(a.word) + len(b.word))
            lo, hi = at - 480, at + 480
        else:  # marks are a model's durations: 20 ms of slack
            lo, hi = a.end_sample - 160, max(b.start_sample, a.end_sample + 1) + 160
        lo, hi = max(0, lo), min(len(samples) - 80, hi)
        window = 80
        energy = np.convolve(samples.astype(np.float64) ** 2, np.ones(window), mode="valid")
        at = lo + int(np.argmin(energy[lo:hi])) + window // 2
        fade = np.linspace(1.0, 0.0, 40, dtype=np.float32)  # 5 ms each side: no click at the cut
        head, tail = samples[:at].copy(), samples[at:].copy()
        head[-len(fade) :] *= fade
        tail[: len(fade)] *= fade[::-1]
        gap = np.zeros(round(pause_s * RATE), np.float32)
        return np.concatenate([head, gap, tail])

    def on_line(self, clean: np.ndarray) -> np.ndarray:
        """``clean`` float samples with the line's noise, as int16."""
        return float_to_pcm16(clean + self.line(len(clean), clean))

    def line(self, n: int, speech: np.ndarray) -> np.ndarray:
        """``n`` samples of this voice's line noise (float), ``snr_db`` below ``speech``'s level
        (float or int16); zeros on a clean line. A pause in the act gets it too."""
        if self.snr_db is None:
            return np.zeros(n, np.float32)
        level = np.abs(pcm16_to_float(speech) if speech.dtype == np.int16 else speech)
        voiced = level[level > 0.01]
        speech_rms = float(np.sqrt(np.mean(voiced**2))) if voiced.size else 0.01
        rng = np.random.default_rng([self.seed, n])
        sos = butter(4, [300, 3400], btype="bandpass", fs=RATE, output="sos")
        noise = sosfilt(sos, rng.standard_normal(n)).astype(np.float32)
        noise_rms = float(np.sqrt(np.mean(noise**2))) or 1.0
        return noise * np.float32(speech_rms / noise_rms * 10.0 ** (-self.snr_db / 20.0))


@dataclass(frozen=True, slots=True)
class CallerSet:
    """What one set of callers says (each kind of act takes its phrases in turn) and how."""

    name: str
    ask: tuple[str, ...]
    barge: tuple[str, ...]
    #: (the unfinished phrase, the pause after it in seconds, the rest)
    hesitate: tuple[tuple[str, float, str], ...]
    backchannel: tuple[str, ...]
    noise: tuple[str, ...] = ("cough", "knock")
    #: every act in a voice of its own (else hibari's as it is)
    varied: bool = False
    #: the seed its voices are drawn from
    seed: int = 0
    #: the acts a caller goes through, repeated (None: ``v2v_callers.CYCLE``)
    cycle: tuple[str, ...] | None = None
    #: how many acts a run has unless told (enough for every hesitation once)
    acts: int = 20
    #: hesitations are cut out of whole sentences (else the two parts are said apart)
    cut: bool = False
    #: who says the hesitations, in turn (keys of ``CAST``)
    hesitation_speakers: tuple[str, ...] = ("hibari",)

    def voice(self, act: int) -> Voice:
        """The voice of act ``act`` (the same on every run)."""
        return varied_voice(self.seed, act) if self.varied else Voice(seed=self.seed + act)

    def hesitation_voice(self, act: int, nth: int) -> Voice:
        """The voice of act ``act``, the ``nth`` hesitation: its speaker in turn, in the act's voice."""
        speaker = self.hesitation_speakers[nth % len(self.hesitation_speakers)]
        voice = self.voice(act)
        if speaker == "hibari-low":  # hibari a fifth down: a voice in a man's range
            return replace(voice, semitones=voice.semitones - 7.0)
        return replace(voice, speaker=speaker)


def varied_voice(seed: int, act: int) -> Voice:
    """A voice of its own for act ``act`` of a set seeded ``seed``: speed 0.85-1.2, pitch
    -2.5..+2.5 semitones, level -4..-18 dB, line hiss at 18-35 dB SNR (the same on every run)."""
    rng = np.random.default_rng([seed, act])
    return Voice(
        speed=float(rng.uniform(0.85, 1.2)),
        semitones=float(rng.uniform(-2.5, 2.5)),
        gain_db=float(rng.uniform(-18.0, -4.0)),
        snr_db=float(rng.uniform(18.0, 35.0)),
        seed=seed + act,
    )


TUNED = CallerSet(
    name="tuned",
    ask=(
        "What time do you open?",
        "What is the weather like?",
        "I want to make a reservation.",
        "When do you close?",
        "Hello.",
        "Is it sunny today?",
    ),
    barge=(
        "When do you close?",
        "What are your opening hours?",
        "Is it sunny today?",
        "I would like to book a table.",
    ),
    hesitate=(
        ("We are looking for", 0.7, "something quiet."),
        ("I would like to book a table for", 0.9, "two people at eight."),
        ("Is it possible to", 0.5, "bring a dog?"),
        ("Do you have a table near", 1.0, "the window?"),
    ),
    backchannel=("Yeah.", "Mm hmm.", "Okay.", "Right.", "Sure."),
)

WIDE = CallerSet(
    name="wide",
    ask=(
        "Do you deliver to the east side of town?",
        "How much is the chef's special tonight?",
        "Can I change my booking to Friday?",
        "Are there any vegetarian dishes on the menu?",
        "Is there parking near the restaurant?",
        "Do you take credit cards?",
        "Could you tell me where you are?",
        "Is the kitchen still open?",
    ),
    barge=(
        "Actually, can we make it seven instead?",
        "Sorry, I meant next Saturday.",
        "Hold on, how much does that cost?",
        "No, I need a table for six.",
    ),
    # each a whole sentence cut at a word boundary ("|"), written before any cue was tuned on it
    # and never changed since: the first part keeps the pitch of a sentence that goes on
    hesitate=(
        ("We would like a table on", 0.8, "the terrace if the weather is nice."),
        ("Could you tell me if the", 0.7, "kitchen serves anything without gluten?"),
        ("I am bringing my mother and", 0.9, "my two kids on Saturday."),
        ("Is it true that your", 0.6, "lunch menu changes every week?"),
        ("My husband and I will be arriving in", 0.85, "about forty minutes."),
        ("We wanted to talk to", 0.75, "the manager about our last visit."),
        ("I have a friend who", 0.8, "cannot eat any shellfish at all."),
        ("Do you still have the dessert which", 0.7, "everyone was talking about?"),
        ("My sister says that we should", 0.9, "order the tasting menu."),
        ("I would like to book a table but", 0.65, "only if you have one outside."),
        ("Can we order an", 0.8, "extra portion of the grilled fish?"),
        ("The children are", 0.75, "going to want something simple."),
        ("We might be a little late, so could", 0.85, "you hold the table for us?"),
        ("I am calling because our", 0.7, "reservation was cancelled by mistake."),
        ("Is there a place where", 0.9, "we can park a large van?"),
        ("I was wondering if you can", 0.6, "seat us by the fireplace."),
        ("Tell me about the dishes that", 0.8, "you would recommend for children."),
        ("We will come with", 0.7, "two friends from out of town."),
    ),
    backchannel=("Uh huh.", "Yeah.", "Mhm.", "Okay, sure.", "I see.", "Got it."),
    varied=True,
    seed=2026,
    # half the acts are hesitations, so one run hears each of the 18 once
    cycle=(
        *("ask", "barge", "backchannel", "hesitate", "hesitate", "noise"),
        *("hesitate", "backchannel", "hesitate", "hesitate", "barge", "hesitate"),
    ),
    acts=36,
    cut=True,
    hesitation_speakers=("hibari", "joe", "hibari-low"),
)

CALLER_SETS: dict[str, CallerSet] = {s.name: s for s in (TUNED, WIDE)}


@dataclass(frozen=True, slots=True)
class Endings:
    """Phrases of neither caller set, to choose the turn end's reading of a recognizer's odds on
    (``benchmarks/stt_bench.py``): fragments that stop on an article or a possessive, and whole
    phrases that end on a pronoun (the words a misheard article is written as), each said in
    one varied voice per seed of ``seeds``."""

    fragments: tuple[str, ...]
    wholes: tuple[str, ...]
    seeds: tuple[int, ...]

    def said(self) -> list[tuple[str, bool, Voice]]:
        """(the phrase, whether it is a fragment, its voice) for every phrase in every voice."""
        phrases = [(t, True) for t in self.fragments] + [(t, False) for t in self.wholes]
        return [
            (text, fragment, varied_voice(seed, k))
            for seed in self.seeds
            for k, (text, fragment) in enumerate(phrases)
        ]


ENDINGS = Endings(
    fragments=(
        "Could I order the",
        "Is there a table by the",
        "We need a room with a",
        "I'd like to speak to the",
        "Can we sit on the",
        "My husband wants the",
        "Do you have a",
        "I want to pay with a",
        "We are bringing a",
        "Is it far from the",
        "I'll be there in an",
        "Could you hold the",
        "We'd love a seat at the",
        "I'm calling about my",
        "Can you send me the",
        "I want to book a",
        "Can you give me the",
        "We'd like to try the",
        "I'm looking for a",
        "Could you reserve us a",
        "What about the",
        "Do I need a",
        "Is there an",
    ),
    wholes=(
        "How much is that?",
        "Can you do it?",
        "I'll take this.",
        "Could you call us?",
        "Please tell them.",
        "Is that mine?",
        "Can I have it?",
        "Do you like this?",
        "We really loved it.",
        "Can you repeat that?",
        "Where do I find them?",
        "Who can I ask about this?",
        "Is anybody there?",
        "We will see you then.",
    ),
    seeds=(900, 901, 902),
)

__all__ = ["CALLER_SETS", "ENDINGS", "TUNED", "WIDE", "CallerSet", "Endings", "Voice", "varied_voice"]
