"""The Piper backend: the user's Piper VITS voices (``NAME.onnx`` + ``NAME.onnx.json``) on onnxruntime.

One ``PiperBackend`` serves every voice it was given, each loaded once and shared by every
session: its onnxruntime session (``piper_compat``: durations exposed, noise seeded) and an
espeak-ng phonemizer in its own language (``phonemes``). ``load()`` loads them all; a voice whose
files are corrupt or whose espeak language is missing is reported (``skipped``, and a warning
naming it) and the others are served. No voice at all is an error that says where it looked.

Voices are named by their file name (``en_US-joe-medium``); a multi-speaker voice takes a speaker
after a colon (``en_US-libritts-high:p123`` or ``:3``). Speed maps to the voice's length scale.
Audio comes at ``sample_rate`` (22050 Hz, Piper's usual rate); a voice at another rate is
resampled. Word marks are the model's own per-id durations, so they match the audio exactly.

``synthesize_stream`` is the engine's way in for a turn's first unit: the graph's front gives the
unit's latent and durations (so its words and span), the first piece of audio is decoded at once
and the rest (``pieces``) when the engine pulls it, so the first 80 ms frame goes out after a
fraction of the unit's decoding. ``synthesize`` decodes the unit whole. A multi-speaker voice is
kept whole (``piper_compat``) and always rendered whole.

Nothing is downloaded; no Piper code is used; never touches asyncio.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import numpy.typing as npt
import soxr

from tts_service.backends.piper.phonemes import Espeak, to_ids
from tts_service.backends.piper.pieces import LatentPieces, plan
from tts_service.backends.piper.piper_compat import (
    MAX_FRAMES_INPUT,
    NOISE_INPUTS,
    PiperGraphError,
    PiperSession,
    decode,
    open_piper_session,
)
from tts_service.backends.piper.voices import (
    VoiceConfig,
    VoiceFiles,
    locate,
    read_config,
    scan,
    voice_dirs,
)
from tts_service.backends.word_marks import place_words
from tts_service.engine.ports import Capabilities, UnitAudio, VoiceState
from tts_service.engine.resample import StreamResampler
from tts_service.errors import (
    InvalidInputError,
    ModelNotAvailableError,
    SynthesisError,
    UnknownVoiceError,
    WarmlineError,
)

log = logging.getLogger("warmline.piper")

SAMPLE_RATE = 22050
#: speech may start a little before its first phoneme's frames: keep this much (in seconds)
LEAD_MARGIN_S = 0.05
#: noise values per id first offered to the flow's draw (frames per id x channels); x4 on a miss
NOISE_PER_ID = 4096
#: one buffer of standard normal noise shared by every voice; each call reads the graph's draws
#: from offsets its seed picks (drawing ~10^5 values per call cost as much as a tenth of a unit)
NOISE_BUFFER = 1 << 22


class PiperVoiceState(VoiceState):
    """A session's Piper voice: the voice and, on a multi-speaker voice, the speaker id."""

    def __init__(self, voice: str, model: str, speaker: int | None) -> None:
        super().__init__(voice)
        self.model = model
        self.speaker = speaker


@dataclass(frozen=True, slots=True)
class _Voice:
    files: VoiceFiles
    config: VoiceConfig
    graph: PiperSession
    espeak: Espeak
    #: samples per duration frame (Piper's decoders: 256), measured when the voice warms up
    hop: int


class PiperBackend:
    """Piper voices behind the ``StreamingUnitBackend`` protocol. Call ``load()`` once before serving."""

    name = "piper"

    def __init__(
        self,
        *,
        voices: Sequence[str] = (),
        voices_dir: str | Path | None = None,
        default_voice: str | None = None,
        sample_rate: int = SAMPLE_RATE,
        threads: int = 1,
    ) -> None:
        if threads < 1:
            raise InvalidInputError(f"threads must be at least 1, got {threads}")
        self._threads = threads
        self._dirs = voice_dirs(voices_dir)
        self._asked = tuple(voices)
        #: the voice new sessions get: the one given, else (after ``load``) the first loaded by name
        self.default_voice = default_voice or ""
        self.capabilities = Capabilities(
            sample_rate=sample_rate,
            frame_native=False,
            incremental_text=False,
            word_times=True,
            context_limit=None,
            own_normalizer=True,  # espeak-ng reads numbers in the voice's own language
            speaker_tags=False,
            speed_range=(0.5, 2.0),
        )
        self._lock = threading.Lock()
        self._noise = np.zeros(0, np.float32)
        self._voices: dict[str, _Voice] = {}
        self._espeaks: dict[str, Espeak] = {}
        self._graphs: dict[Path, PiperSession] = {}
        #: voices found but not served, with why
        self.skipped: dict[str, str] = {}

    # -- loading ---------------------------------------------------------------------------------

    def load(self) -> None:
        """Load every voice (the ones asked for, else every voice in the folders) and warm each."""
        found = [locate(spec, self._dirs) for spec in self._asked] if self._asked else scan(self._dirs)
        if not len(self._noise):
            self._noise = np.random.default_rng(0).standard_normal(NOISE_BUFFER, np.float32)
        if not found:
            where = ", ".join(str(d) for d in self._dirs) or "nowhere (no voices_dir, $WARMLINE_VOICES unset)"
            raise UnknownVoiceError(f"no Piper voices: looked for NAME.onnx in {where}")
        for files in found:
            try:
                self._load_voice(files)
            except WarmlineError as exc:
                if self._asked:
                    raise
                self.skipped[files.name] = str(exc)
                log.warning("piper voice %s skipped: %s", files.name, exc)
        if not self._voices:
            raise ModelNotAvailableError(
                "no Piper voice could be loaded: " + "; ".join(f"{k}: {v}" for k, v in self.skipped.items())
            )
        if self.default_voice:
            self._split(self.default_voice)
        else:
            self.default_voice = next(iter(self._voices))

    def voices(self) -> tuple[str, ...]:
        """The loaded voices' names."""
        return tuple(self._voices)

    def voice_language(self, voice: str) -> str:
        """The language (BCP 47, ``en-US``) ``voice`` speaks; raises UnknownVoiceError."""
        return self._voice(self._split(voice)[0]).config.language

    def speakers(self, voice: str) -> dict[str, int]:
        """The speakers of a multi-speaker voice by name (empty for a one-speaker voice)."""
        return dict(self._voice(voice).config.speakers)

    def new_voice_state(self, voice: str, seed: int | None = None) -> PiperVoiceState:
        """A state for ``voice`` (``NAME`` or ``NAME:SPEAKER``); raises UnknownVoiceError."""
        model, speaker = self._split(voice)
        return PiperVoiceState(voice, model, speaker)

    def reset_context(self, state: VoiceState) -> None:
        """Nothing to do: each unit is synthesized on its own."""

    def phonemize(self, text: str, voice: str | None = None) -> str:
        """espeak-ng's phonemes of ``text`` in ``voice``'s language (for tests and benchmarks)."""
        return self._voice(voice or self.default_voice).espeak.phonemize(text)

    def _voice(self, name: str) -> _Voice:
        voice = self._voices.get(name)
        if voice is None:
            raise UnknownVoiceError(
                f"piper voice {name!r} is not loaded here; loaded: {', '.join(self._voices) or 'none'}"
            )
        return voice

    def _split(self, voice: str) -> tuple[str, int | None]:
        name, _, speaker = voice.partition(":")
        config = self._voice(name).config
        if config.num_speakers <= 1:
            if speaker:
                raise UnknownVoiceError(f"piper voice {name!r} has one speaker; drop {':' + speaker!r}")
            return name, None
        if not speaker:
            return name, 0
        if speaker in config.speakers:
            return name, config.speakers[speaker]
        if speaker.isdigit() and int(speaker) < config.num_speakers:
            return name, int(speaker)
        raise UnknownVoiceError(
            f"piper voice {name!r} has no speaker {speaker!r} (names in its speaker_id_map, or 0.."
            f"{config.num_speakers - 1})"
        )

    def _load_voice(self, files: VoiceFiles) -> None:
        config = read_config(files)
        with self._lock:
            espeak = self._espeaks.get(config.espeak_voice)
            if espeak is None:
                espeak = Espeak(config.espeak_voice)
                self._espeaks[config.espeak_voice] = espeak
        model = files.model.resolve()
        graph = self._graphs.get(model)  # two configs over one graph (a language, a speaker set) share it
        if graph is None:
            try:
                graph = open_piper_session(str(model), self._threads)
            except PiperGraphError as exc:
                raise ModelNotAvailableError(f"piper voice {files.name!r}: {files.model}: {exc}") from exc
            self._graphs[model] = graph
        voice = _Voice(files, config, graph, espeak, hop=0)
        if graph.multi_speaker != (config.num_speakers > 1):
            raise ModelNotAvailableError(
                f"piper voice {files.name!r}: its config says {config.num_speakers} speakers, its graph "
                f"{'takes' if graph.multi_speaker else 'takes no'} speaker id"
            )
        speaker = 0 if graph.multi_speaker else None
        first, durations = self._front(
            voice, to_ids(espeak.phonemize("Hello."), config.phoneme_ids).ids, 1.0, speaker, 0
        )
        frames = int(durations.sum())
        audio = first if graph.decoder is None else decode(graph, first, 0, frames)
        self._voices[files.name] = replace(voice, hop=len(audio) // frames)

    # -- synthesis -------------------------------------------------------------------------------

    def synthesize(self, state: VoiceState, text: str, *, speed: float, seed: int | None) -> UnitAudio:
        """Audio of one speakable unit with its word marks and speech span; raises SynthesisError."""
        return self._synthesize(state, text, speed, seed, streamed=False)

    def synthesize_stream(self, state: VoiceState, text: str, *, speed: float, seed: int | None) -> UnitAudio:
        """Like ``synthesize``, but on a one-speaker voice only the first piece is decoded here
        (``pieces``): ``rest`` decodes the others when the engine asks for them."""
        return self._synthesize(state, text, speed, seed, streamed=True)

    def _synthesize(
        self, state: VoiceState, text: str, speed: float, seed: int | None, *, streamed: bool
    ) -> UnitAudio:
        if not isinstance(state, PiperVoiceState):
            raise InvalidInputError(f"not a piper voice state: {type(state).__name__}")
        rate = self.capabilities.checked_speed(speed)
        voice = self._voice(state.model)
        words = text.split()
        try:
            phonemes = to_ids(voice.espeak.phonemize(text), voice.config.phoneme_ids)
            counts = voice.espeak.word_counts(words)
        except Exception as exc:
            raise SynthesisError(f"espeak-ng could not read the text: {exc}") from exc
        if not phonemes.words:
            return UnitAudio(np.zeros(0, np.float32), (), 0, 0)
        first, durations = self._front(voice, phonemes.ids, rate, state.speaker, seed)
        graph = voice.graph
        frames = int(durations.sum())
        edges = np.concatenate([[0], np.cumsum(durations)])
        rest: LatentPieces | None = None
        resampler = StreamResampler(voice.config.sample_rate, self.capabilities.sample_rate)
        if graph.decoder is None:
            samples = first
        elif not streamed:
            samples = decode(graph, first, 0, frames)
        else:
            ends = plan(frames, int(edges[phonemes.words[0][0]]), voice.config.sample_rate / voice.hop)
            rest = LatentPieces(graph, first, ends[1:], ends[0], resampler)
            samples = decode(graph, first, 0, ends[0])
        decoded = frames if rest is None else ends[0]
        hop = len(samples) // decoded
        if hop <= 0 or len(samples) != decoded * hop:
            raise SynthesisError(
                f"piper durations do not match its audio ({decoded} frames, {len(samples)} samples)"
            )
        total = frames * hop
        edges = edges * hop
        # a phoneme word runs to the end of the pad after its last phoneme (the model voices it too)
        spans = [(int(edges[a]), int(edges[b + 2])) for a, b in phonemes.words]
        margin = int(LEAD_MARGIN_S * voice.config.sample_rate)
        start = max(0, spans[0][0] - margin)
        end = int(edges[-1] - durations[-1] * hop)  # keep the closing punctuation's pause, cut the end pad
        if not resampler.passthrough:
            to_out = resampler.to_output_position
            if rest is None:
                samples = soxr.resample(samples, voice.config.sample_rate, self.capabilities.sample_rate)
            else:
                samples = resampler.process(samples) if rest.pieces_left else resampler.finish(samples)
            spans = [(to_out(a), to_out(b)) for a, b in spans]
            start, end = to_out(start), min(to_out(end), to_out(total))
        if rest is not None and rest.done:
            rest = None
        return UnitAudio(samples, place_words(words, counts, spans), start, end, rest)

    def _front(
        self, voice: _Voice, ids: list[int], speed: float, speaker: int | None, seed: int | None
    ) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.int64]]:
        """The front's latent (or, for a graph kept whole, the audio) and the capped durations."""
        config = voice.config
        scales = [config.noise_scale, config.length_scale / speed, config.noise_w]
        feeds: dict[str, npt.NDArray[np.generic]] = {
            "input": np.asarray([ids], np.int64),
            "input_lengths": np.asarray([len(ids)], np.int64),
            "scales": np.asarray(scales, np.float32),
        }
        if speaker is not None:
            feeds["sid"] = np.asarray([speaker], np.int64)
        # the end-of-sentence id's silence is cut anyway (speech_end): one frame, not ten or more
        max_frames = np.full(len(ids), np.inf, np.float32)
        max_frames[-1] = 1.0
        feeds[MAX_FRAMES_INPUT] = max_frames
        size = len(ids) * NOISE_PER_ID * max(1, round(1 / speed))
        for attempt in range(4):
            rng = np.random.default_rng(seed)
            for name in NOISE_INPUTS[: voice.graph.noises]:
                if size < len(self._noise):
                    start = int(rng.integers(0, len(self._noise) - size))
                    feeds[name] = self._noise[start : start + size]
                else:
                    feeds[name] = rng.standard_normal(size, np.float32)
            try:
                first, ceil = voice.graph.front.run(None, feeds)
                break
            except Exception as exc:
                if attempt == 3 or "Reshape" not in str(exc):
                    raise SynthesisError(f"piper voice failed on {len(ids)} phoneme ids: {exc}") from exc
                size *= 4
        durations = np.asarray(ceil, np.float32).reshape(-1).astype(np.int64)
        total = int(durations.sum())
        out = np.asarray(first, np.float32)
        # The durations come from inside the graph; if an export moved them, say so rather than
        # publish word marks that do not match the audio.
        length = out.shape[-1] if voice.graph.decoder is not None else out.size
        if len(durations) != len(ids) or total <= 0 or length % total:
            raise SynthesisError(
                f"piper durations do not match its audio ({total} frames for {length} samples or frames, "
                f"{len(durations)} durations for {len(ids)} ids)"
            )
        return (out if voice.graph.decoder is not None else out.reshape(-1)), durations


__all__ = ["SAMPLE_RATE", "PiperBackend", "PiperVoiceState"]
