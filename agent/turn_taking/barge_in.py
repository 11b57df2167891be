"""A barge-in that can be taken back: pause at once, then interrupt or resume by what was said.

    barge = BargeIn()
    barge.bot_started(now)
    acts = barge.speech_started(now)             # [PauseBot()]: silent within one frame
    acts = barge.words("yeah", now, final=True)  # [ResumeBot(dropped="yeah")]: only a backchannel
    acts = barge.words("wait a second", now, final=False)   # [Interrupt("wait a second")]

Events in, actions out:

* ``PauseBot()``: the caller started speaking over the bot: stop its audio now, keep the rest;
* ``ResumeBot(dropped)``: it was a backchannel (``dropped`` is its transcript, which must not
  reach the LLM) or a noise with no words: the answer goes on from exactly where it stopped;
* ``Interrupt(words)``: real words (anything but backchannel, or a stop word such as "wait"): the
  bot's turn is over; the caller's turn begins (the heard words stay in the context);
* ``StartTurn()``: the caller started speaking while the bot was silent: an ordinary turn.

Interim transcripts can interrupt but never resume: "yeah" may yet become "yeah, but". An interim
interrupts with a stop word, or with ``interim_words`` words that are not all backchannel once
the caller has spoken over the bot for ``interim_after_s`` (longer than a backchannel: a partial
hypothesis of something that short is too often wrong, "uh huh" half-decoded reads "hello",
"right" reads "bring a"; the bot is silent meanwhile, so waiting costs the caller nothing); a
final transcript with anything but backchannel interrupts. With no words ``no_words_s`` after
the caller stops, or ``max_pause_s`` into a pause, the bot resumes. Sans-I/O: the caller calls
``tick`` at ``next_deadline_s()``.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass

from agent.turn_taking.cues import BACKCHANNELS, STOP_WORDS, interrupts, words_of


@dataclass(frozen=True, slots=True)
class PauseBot:
    """Stop the bot's audio now; keep what it has not said."""


@dataclass(frozen=True, slots=True)
class ResumeBot:
    """Continue the bot's answer from where it stopped; ``dropped`` is the transcript to forget."""

    dropped: str = ""


@dataclass(frozen=True, slots=True)
class Interrupt:
    """The caller really took the turn: the bot's answer ends with what was heard; ``words``:
    what the caller said that made it so (for logs)."""

    words: str = ""


@dataclass(frozen=True, slots=True)
class StartTurn:
    """The caller began speaking while the bot was silent."""


BargeInAction = PauseBot | ResumeBot | Interrupt | StartTurn


class BargeIn:
    """The caller speaking while the bot speaks; see the module docstring."""

    def __init__(
        self,
        *,
        backchannels: Sequence[str] = BACKCHANNELS,
        stop_words: Collection[str] = STOP_WORDS,
        no_words_s: float = 0.6,
        max_pause_s: float = 3.0,
        interim_words: int = 2,
        interim_after_s: float = 0.6,
    ) -> None:
        if no_words_s <= 0 or max_pause_s <= 0:
            raise ValueError("no_words_s and max_pause_s must be positive")
        self._backchannels = tuple(backchannels)
        self._stop_words = frozenset(stop_words)
        self._no_words_s = no_words_s
        self._max_pause_s = max_pause_s
        self._interim_words = interim_words
        self._interim_after_s = interim_after_s
        self._speaking_since_s: float | None = None
        self._bot_speaking = False
        self._paused_at_s: float | None = None
        self._quiet_since_s: float | None = None
        self._heard: list[str] = []
        #: pauses taken back (the bot resumed) and confirmed, for metrics
        self.resumed = 0
        self.interrupted = 0

    @property
    def paused(self) -> bool:
        return self._paused_at_s is not None

    def next_deadline_s(self) -> float | None:
        if self._paused_at_s is None:
            return None
        due = self._paused_at_s + self._max_pause_s
        if self._quiet_since_s is not None:
            due = min(due, self._quiet_since_s + self._no_words_s)
        return due

    # -- the bot ------------------------------------------------------------------------------

    def bot_started(self, now: float) -> list[BargeInAction]:
        self._bot_speaking = True
        return []

    def bot_stopped(self, now: float) -> list[BargeInAction]:
        """The bot's audio ended (its answer was done, or a confirmed interruption cut it)."""
        self._bot_speaking = False
        return []

    # -- the caller ---------------------------------------------------------------------------

    def speech_started(self, now: float) -> list[BargeInAction]:
        self._speaking_since_s = now
        if self._paused_at_s is not None:
            self._quiet_since_s = None  # still (or again) speaking over the paused bot
            return []
        if not self._bot_speaking:
            return [StartTurn()]
        self._paused_at_s = now
        self._quiet_since_s = None
        self._heard = []
        return [PauseBot()]

    def speech_stopped(self, now: float) -> list[BargeInAction]:
        self._speaking_since_s = None
        if self._paused_at_s is None:
            return []
        if self._heard:  # the final transcript came first, and it was only a backchannel
            return self._end([ResumeBot(" ".join(self._heard))], interrupted=False)
        self._quiet_since_s = now
        return []

    def words(self, text: str, now: float, *, final: bool) -> list[BargeInAction]:
        """A transcript (interim or final) of what the caller says over the paused bot."""
        said = words_of(text)
        if self._paused_at_s is None or not said:
            return []
        long_enough = (
            self._speaking_since_s is not None and now - self._speaking_since_s >= self._interim_after_s
        )
        sure = (
            final
            or any(w in self._stop_words for w in said)
            or (len(said) >= self._interim_words and long_enough)
        )
        if sure and interrupts(text, self._backchannels, self._stop_words):
            return self._end([Interrupt(text.strip())], interrupted=True)
        if final:
            self._heard.append(text.strip())
            if self._quiet_since_s is not None:
                return self._end([ResumeBot(" ".join(self._heard))], interrupted=False)
        return []

    def tick(self, now: float) -> list[BargeInAction]:
        due = self.next_deadline_s()
        if due is None or now < due:
            return []
        return self._end([ResumeBot(" ".join(self._heard))], interrupted=False)

    def _end(self, acts: list[BargeInAction], *, interrupted: bool) -> list[BargeInAction]:
        self._paused_at_s = None
        self._quiet_since_s = None
        self._heard = []
        if interrupted:
            self.interrupted += 1
            self._bot_speaking = False
        else:
            self.resumed += 1
        return acts


__all__ = ["BargeIn", "BargeInAction", "Interrupt", "PauseBot", "ResumeBot", "StartTurn"]
