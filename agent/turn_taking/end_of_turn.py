"""The caller's turn end, with a speculative answer held ready: a sans-I/O state machine.

    turn = EndOfTurn(TurnEndPolicy())
    turn.opened(now)                           # the caller's turn began
    turn.transcript("What time do you open", now)
    acts = turn.speech_stopped(now, silence_began_s=now - 0.1)   # a pause: [Speculate(text)]
    acts = turn.smart_turn(0.97, now)          # the audio model's verdict for this pause
    acts = turn.tick(clock())                  # at next_deadline_s(): [Confirm(text)]

Events in (with the time they happened), actions out, in order:

* ``Speculate(text)``: start the answer to ``text`` now, its audio held (the caller may go on);
* ``Cancel()``: drop the speculative answer (the caller went on, or the words changed);
* ``Confirm(text)``: the turn is over and the speculative answer is for exactly ``text``: release
  it (no second LLM request);
* ``Answer(text)``: the turn is over and no usable speculation exists: answer ``text`` now.

One speculation at most is in flight; a new one is preceded by the ``Cancel`` of the old. The
gaps come from ``TurnEndPolicy`` (silence, the audio model, the words). Speech that resumes
before the gap cancels everything pending and the turn goes on; the next pause starts over.
A speculation that failed (``speculation_failed``: the LLM errored) is never confirmed: the turn
end answers afresh. Nothing here reads a clock, sleeps or does I/O: the caller calls ``tick`` at
``next_deadline_s()``.
"""

from __future__ import annotations

from dataclasses import dataclass

from agent.turn_taking.policy import TurnEndPolicy


@dataclass(frozen=True, slots=True)
class Speculate:
    """Start the answer to ``text`` now, its audio held until confirmed."""

    text: str


@dataclass(frozen=True, slots=True)
class Cancel:
    """Drop the speculative answer: nothing of it may be heard or recorded."""


@dataclass(frozen=True, slots=True)
class Confirm:
    """The turn is over; release the speculative answer to ``text``."""

    text: str


@dataclass(frozen=True, slots=True)
class Answer:
    """The turn is over; answer ``text`` now (no speculation fits it)."""

    text: str


EndOfTurnAction = Speculate | Cancel | Confirm | Answer


class EndOfTurn:
    """One caller turn at a time; see the module docstring for the events and actions."""

    def __init__(self, policy: TurnEndPolicy | None = None, *, speculate: bool = True) -> None:
        self.policy = policy or TurnEndPolicy()
        self._speculate = speculate
        self._open = False
        self._segments: list[str] = []
        self._silence_began_s: float | None = None
        self._probability: float | None = None
        self._speculation: str | None = None
        self._failed = False
        #: speculations started in this turn (for metrics: each one is an LLM request)
        self.speculations = 0
        #: the cue that decided the last turn end ("complete", "unsure", "unfinished")
        self.last_reason = ""

    # -- reading ------------------------------------------------------------------------------

    @property
    def text(self) -> str:
        """Everything the caller said in this turn so far."""
        return " ".join(self._segments)

    @property
    def speculating(self) -> str | None:
        """The text the speculative answer in flight answers, if one is."""
        return self._speculation

    def next_deadline_s(self) -> float | None:
        """When ``tick`` must be called next (clock seconds), if anything is pending."""
        if not self._open or self._silence_began_s is None or not self._segments:
            return None
        gap = self.policy.gap_s(self.text, self._probability)
        due = self._silence_began_s + gap
        if self._speculate and self._speculation is None:
            due = min(due, self._silence_began_s + self.policy.speculate_after_s(self.text))
        return due

    # -- events -------------------------------------------------------------------------------

    def opened(self, now: float) -> list[EndOfTurnAction]:
        """A caller turn began: start from nothing."""
        acts = self._drop_speculation()
        self._open = True
        self._segments = []
        self._silence_began_s = None
        self._probability = None
        self._failed = False
        self.speculations = 0
        return acts

    def closed(self) -> list[EndOfTurnAction]:
        """The turn ended elsewhere (a watchdog, a barge-in, the call): nothing may stay pending."""
        acts = self._drop_speculation()
        self._open = False
        self._silence_began_s = None
        return acts

    def speech_started(self, now: float) -> list[EndOfTurnAction]:
        """The caller speaks again: whatever this pause started is dropped; the turn goes on."""
        self._silence_began_s = None
        self._probability = None
        return self._drop_speculation()

    def speech_stopped(self, now: float, *, silence_began_s: float) -> list[EndOfTurnAction]:
        """A pause began at ``silence_began_s`` (the VAD confirmed it at ``now``)."""
        if not self._open:
            return []
        self._silence_began_s = silence_began_s
        self._probability = None
        return self.tick(now)

    def transcript(self, text: str, now: float) -> list[EndOfTurnAction]:
        """A final transcript of one stretch of the caller's speech."""
        text = text.strip()
        if not self._open or not text:
            return []
        self._segments.append(text)
        acts: list[EndOfTurnAction] = []
        if self._speculation is not None and self._speculation != self.text:
            acts += self._drop_speculation()  # the answer was for other words
        return acts + self.tick(now)

    def smart_turn(self, probability: float, now: float) -> list[EndOfTurnAction]:
        """The audio model's probability that the turn is complete, for the current pause."""
        if not self._open or self._silence_began_s is None:
            return []
        self._probability = probability
        return self.tick(now)

    def speculation_failed(self, now: float) -> list[EndOfTurnAction]:
        """The speculative answer will not come (the LLM failed): the turn end answers afresh."""
        if self._speculation is not None:
            self._failed = True
        return self.tick(now)

    def tick(self, now: float) -> list[EndOfTurnAction]:
        """Act on the gaps that have passed by ``now``."""
        if not self._open or self._silence_began_s is None or not self._segments:
            return []
        began = self._silence_began_s
        text = self.text
        gap, reason = self.policy.verdict(text, self._probability)
        # deadlines are compared as times (what next_deadline_s gave), never as recomputed spans
        if now >= began + gap:
            self.last_reason = reason
            self._open = False
            self._silence_began_s = None
            if self._speculation == text and not self._failed:
                self._speculation = None
                return [Confirm(text)]
            return [*self._drop_speculation(), Answer(text)]
        acts: list[EndOfTurnAction] = []
        if (
            self._speculate
            and self._speculation is None
            and now >= began + self.policy.speculate_after_s(text)
        ):
            self._speculation = text
            self._failed = False
            self.speculations += 1
            acts.append(Speculate(text))
        return acts

    def _drop_speculation(self) -> list[EndOfTurnAction]:
        if self._speculation is None:
            return []
        self._speculation = None
        self._failed = False
        return [Cancel()]


__all__ = ["Answer", "Cancel", "Confirm", "EndOfTurn", "EndOfTurnAction", "Speculate"]
