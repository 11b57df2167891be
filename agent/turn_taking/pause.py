"""The moment the caller goes quiet, before the VAD confirms it: a sans-I/O level tracker.

    pauses = PauseDetector()
    pauses.speech_started()                       # the VAD confirmed speech
    event = pauses.feed(pcm, now, duration_s)     # each input frame: PauseBegan, SpeechResumed or None

The VAD confirms a pause only after ``stop_secs`` of quiet (and Silero's confidence lingers after
the voice has stopped), which is too late to start a speculative answer if it is to be ready
within a human gap. This tracker follows the caller's level frame by frame and reports
``PauseBegan(silence_began_s)`` once the audio has been quiet for ``onset_s``: quiet meaning
``below_speech_db`` under the caller's recent speech (fast attack, slow release), under
``floor_dbfs``, or, on a line with hiss, within ``above_noise_db`` of the line's noise floor
(followed down at once, up slowly) while ``min_below_speech_db`` under the speech: a caller 18 dB
over the hiss never drops 25 dB under their own speech, and their pauses were seen only when the
VAD's stop came, some 200 ms later.
``silence_began_s`` is where the quiet began, which the turn's gap is measured
from. A loud stretch shorter than ``blip_s`` inside the quiet (the release of a final "t" or "k")
does not end it; a longer one does (``SpeechResumed`` if a pause was reported). The VAD remains
the judge of speech: this only reports earlier, and the turn end still waits for the VAD's stop.

A short word said after a gap is as short as a release: "who" of "I have a friend ... who" was
60-80 ms loud in hibari's voice, 100 ms after "friend". A loud stretch inside a reported pause
that lasted ``word_s`` or more (longer than a stop's burst, which the 20 ms frames of a phone line
show as one frame) and then went quiet again is reported when it ends (``VoiceInPause``): the
pause stands, but what was heard before it is no longer all the caller said (the recognizer reads
it again).

Pure and synchronous: samples and times in, events out.
"""

from __future__ import annotations

from dataclasses import dataclass

from tts_service.dsp import pcm16_dbfs


@dataclass(frozen=True, slots=True)
class PauseBegan:
    """The caller has been quiet since ``silence_began_s`` (for the detector's onset)."""

    silence_began_s: float


@dataclass(frozen=True, slots=True)
class SpeechResumed:
    """The caller spoke again after a reported pause."""


@dataclass(frozen=True, slots=True)
class VoiceInPause:
    """Inside a reported pause, ``lasted_s`` of loud audio came and went: too short to end the
    pause, longer than a stop's release (a short word: "who", "a", "to")."""

    lasted_s: float


PauseEvent = PauseBegan | SpeechResumed | VoiceInPause


@dataclass(frozen=True, slots=True)
class PauseSettings:
    """How quiet, for how long, makes a pause."""

    #: quiet for this long reports a pause
    onset_s: float = 0.06
    #: a frame is quiet this far below the caller's recent speech level
    below_speech_db: float = 25.0
    #: and always below this level (dBFS)
    floor_dbfs: float = -55.0
    #: a louder stretch shorter than this does not end the quiet (a plosive's release); under
    #: the VAD's start (0.1 s), which no such stretch confirms as speech either
    blip_s: float = 0.08
    #: a shorter stretch inside a reported pause that lasts this long is a word (``VoiceInPause``):
    #: more than one 20 ms frame, which is as much as a stop's burst fills
    word_s: float = 0.04
    #: how fast the speech level falls back after loud audio (dB per second)
    release_db_per_s: float = 3.0
    #: a frame is also quiet this close to the line's noise floor (the quietest recent level)...
    above_noise_db: float = 9.0
    #: ...if it is this far below the caller's recent speech all the same
    min_below_speech_db: float = 12.0
    #: how fast the noise floor follows the level up (dB per second; down, at once)
    noise_rise_db_per_s: float = 1.0

    def __post_init__(self) -> None:
        if self.onset_s <= 0 or self.below_speech_db <= 0 or self.min_below_speech_db <= 0:
            raise ValueError("onset_s, below_speech_db and min_below_speech_db must be positive")
        if min(self.blip_s, self.release_db_per_s, self.above_noise_db, self.noise_rise_db_per_s) < 0:
            raise ValueError("blip_s, the release, above_noise_db and the noise's rise must not be negative")
        if self.word_s <= 0:
            raise ValueError("word_s must be positive")


class PauseDetector:
    """One caller stream's pauses; see the module docstring."""

    def __init__(self, settings: PauseSettings | None = None) -> None:
        self.settings = settings or PauseSettings()
        #: the caller's recent speech level and the line's noise floor, from the first frame on
        self._speech_db: float | None = None
        self._noise_db: float | None = None
        self._voiced = False  # loud audio seen since the speech started or resumed
        self._quiet_from: float | None = None
        self._loud_s = 0.0  # the current loud stretch inside the quiet
        self._reported = False

    @property
    def paused(self) -> bool:
        """A pause was reported and the caller has not spoken since."""
        return self._reported

    def speech_started(self) -> None:
        """The VAD confirmed speech: a new stretch begins (a pause may follow it)."""
        self._voiced = False
        self._quiet_from = None
        self._loud_s = 0.0
        self._reported = False

    def feed(self, pcm: bytes, now: float, duration_s: float) -> PauseEvent | None:
        """One frame of int16 PCM that ended at ``now`` and lasted ``duration_s``."""
        return self.feed_level(pcm16_dbfs(pcm), now, duration_s)

    def feed_level(self, level_db: float, now: float, duration_s: float) -> PauseEvent | None:
        """``feed`` for a frame whose level (dBFS) is known."""
        s = self.settings
        falling = level_db if self._speech_db is None else self._speech_db - s.release_db_per_s * duration_s
        rising = level_db if self._noise_db is None else self._noise_db + s.noise_rise_db_per_s * duration_s
        speech_db = self._speech_db = max(level_db, falling)
        noise_db = self._noise_db = min(level_db, rising)
        near_noise = min(noise_db + s.above_noise_db, speech_db - s.min_below_speech_db)
        quiet = level_db < max(s.floor_dbfs, speech_db - s.below_speech_db, near_noise)
        if not quiet:
            if self._quiet_from is None:
                self._voiced = True
                return None
            self._loud_s += duration_s
            if self._loud_s < s.blip_s:
                return None
            # speech again: the quiet is over
            self._quiet_from = None
            self._loud_s = 0.0
            self._voiced = True
            if self._reported:
                self._reported = False
                return SpeechResumed()
            return None
        voice_s, self._loud_s = self._loud_s, 0.0
        if not self._voiced:
            return None
        if self._reported and voice_s >= s.word_s - 1e-9:
            return VoiceInPause(voice_s)
        if self._quiet_from is None:
            self._quiet_from = now - duration_s
        if not self._reported and now - self._quiet_from >= s.onset_s - 1e-9:
            self._reported = True
            return PauseBegan(self._quiet_from)
        return None


__all__ = ["PauseBegan", "PauseDetector", "PauseEvent", "PauseSettings", "SpeechResumed", "VoiceInPause"]
