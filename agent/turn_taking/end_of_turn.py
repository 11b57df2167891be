"""The caller's turn end, with a speculative answer held ready: a sans-I/O state machine.

    turn = EndOfTurn(TurnEndPolicy())
    turn.opened(now)                           # the caller's turn began
    turn.interim("what time do you open", now) # the recognizer's running hypothesis
    acts = turn.pause_began(now, silence_began_s=now - 0.06)     # quiet: [Speculate(text)]
    turn.transcript("What time do you open", now, heard)   # heard: the words' confidence
    acts = turn.speech_stopped(now, silence_began_s=now - 0.15)  # the VAD confirms the pause
    acts = turn.smart_turn(0.97, now)          # the audio model's verdict for this pause
    acts = turn.tick(clock())                  # at next_deadline_s(): [Confirm(text)]

Events in (with the time they happened), actions out, in order:

* ``Speculate(text)``: start the answer to ``text`` now, its audio held (the caller may go on);
* ``Cancel()``: drop the speculative answer (the caller went on, or the words changed);
* ``Confirm(text)``: the turn is over and the speculative answer is for exactly ``text``: release
  it (no second LLM request);
* ``Answer(text)``: the turn is over and no usable speculation exists: answer ``text`` now.

One speculation at most is in flight; a new one is preceded by the ``Cancel`` of the old. The
gaps come from ``TurnEndPolicy`` (silence, the audio model, the words), measured from when the
silence began.

A pause is seen twice. ``pause_began`` (``pause.PauseDetector``: the level dropped, some 60 ms
in) comes first: a turn that reads complete in the recognizer's running hypothesis (``interim``,
``EARLY_MIN_WORDS`` words at least) is answered speculatively at once, so the answer is ready by
the time a human gap has passed. A recognizer that writes its words only once the caller pauses
(whisper) sends them in the pause, with their confidence: the speculation starts then, or starts
over if it was for other words. ``speech_resumed`` takes that pause back. ``speech_stopped``
(the VAD confirmed the pause, with its final transcript just before) comes later and is what
lets a turn end; the silence counts from the earlier of the two starts, unless the level's start
is more than ``EARLY_SLACK_S`` before the VAD's (then the VAD heard speech the level missed, and
the VAD's start holds). Speech that resumes before the gap cancels everything pending and the
turn goes on; the next pause starts over. Speech the VAD heard after the last final transcript
(``speech_started``) leaves the turn's words stale until a transcript comes: a stretch the
recognizer found no words in (whisper on a phrase's last "where", split off by the VAD) or one an
STT has not written yet holds the turn end to the policy's bound (``TurnEndPolicy``: "unread").
The level hears the caller resume some 80 ms in, the VAD
some 160 ms in: a resumption the level reports after the VAD's stop (``speech_resumed``) holds the
turn end until the VAD confirms the speech (``speech_started``) or does not within
``RESUME_HOLD_S`` of the caller's audio (``audio_read``: a cough, a click; the pause goes on), so a
caller who resumes just before the bound is not answered in their first syllable. The hold counts
audio read, not the clock: on a loaded machine the VAD's start came 415 ms after the level's
resumption by the clock, within the same 160 ms of audio (``RESUME_HOLD_BOUND_S`` bounds it by
the clock, should the audio stop coming).
A speculation that failed (``speculation_failed``: the LLM errored) is never confirmed: the turn
end answers afresh. Nothing here reads a clock, sleeps or does I/O: the caller calls ``tick`` at
``next_deadline_s()``.
"""

from __future__ import annotations

from dataclasses import dataclass

from agent.turn_taking.confidence import Heard
from agent.turn_taking.cues import words_of
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

#: the most by which a level-based silence start may precede the VAD's (its lingering confidence)
EARLY_SLACK_S = 0.25
#: a running hypothesis this short is too often a fragment ("when" for "what is the...") to
#: answer before the VAD's stop
EARLY_MIN_WORDS = 2
#: how much of the caller's audio a resumption the level heard after the VAD's stop holds the
#: turn end for the VAD to confirm it: its start of 0.1 s of speech takes about 160 ms of audio to
#: confirm on phone audio
RESUME_HOLD_S = 0.3
#: the most such a hold lasts by the clock (audio that stopped coming holds nothing up for ever)
RESUME_HOLD_BOUND_S = 1.0


class EndOfTurn:
    """One caller turn at a time; see the module docstring for the events and actions."""

    def __init__(self, policy: TurnEndPolicy | None = None, *, speculate: bool = True) -> None:
        self.policy = policy or TurnEndPolicy()
        self._speculate = speculate
        self._open = False
        self._segments: list[str] = []
        #: final transcripts that came while no turn was open (a barge-in's first words, before
        #: they confirmed it): the next turn begins with them, as the context's user message does
        self._before_open: list[str] = []
        self._silence_began_s: float | None = None
        #: a pause the level saw before the VAD confirmed it (``pause_began``)
        self._early_s: float | None = None
        #: when the level heard the caller resume after the VAD's stop (the turn end waits), and
        #: how much of the caller's audio has been read since
        self._held_s: float | None = None
        self._held_audio_s = 0.0
        self._interim = ""
        #: how far the recognizer trusts ``_interim``: only an interim written at a pause has this
        self._interim_heard: Heard | None = None
        #: how far the recognizer trusts the last transcript (None: it did not say)
        self._heard: Heard | None = None
        self._probability: float | None = None
        self._speculation: str | None = None
        self._failed = False
        #: speculations started in this turn (for metrics: each one is an LLM request)
        self.speculations = 0
        #: the VAD heard speech after the last final transcript (its words have not come)
        self._unread = False
        #: the cue that decided the last turn end ("complete", "unsure", "unfinished", ...)
        self.last_reason = ""
        #: this turn began by talking over the bot; the next one will (``over_the_bot``)
        self._after_barge_in = False
        self._next_after_barge_in = False

    # -- reading ------------------------------------------------------------------------------

    @property
    def text(self) -> str:
        """Everything the caller said in this turn so far."""
        return " ".join(self._segments)

    @property
    def heard_so_far(self) -> str:
        """``text`` and the recognizer's hypothesis for the stretch it has not finalized yet."""
        return " ".join([*self._segments, self._interim] if self._interim else self._segments)

    @property
    def awaiting_end(self) -> bool:
        """The VAD confirmed a pause in an open turn, and its gap has not run out yet."""
        return self._open and self._silence_began_s is not None

    @property
    def holding(self) -> bool:
        """A resumption after the VAD's stop holds the turn end (``audio_read`` counts it out)."""
        return self._held_s is not None

    @property
    def speculating(self) -> str | None:
        """The text the speculative answer in flight answers, if one is."""
        return self._speculation

    def next_deadline_s(self) -> float | None:
        """When ``tick`` must be called next (clock seconds), if anything is pending."""
        if not self._open or self._silence_began_s is None or not self._segments:
            return None
        if self._held_s is not None:
            return self._held_s + RESUME_HOLD_BOUND_S
        due = self._silence_began_s + self._verdict()[0]
        if self._speculate and self._speculation is None:
            due = min(due, self._silence_began_s + self._speculate_after_s())
        return due

    def _verdict(self) -> tuple[float, str]:
        """The policy's gap for the turn so far, and its cue."""
        return self.policy.verdict(
            self.text,
            self._probability,
            after_barge_in=self._after_barge_in,
            heard=self._heard,
            unread=self._unread,
        )

    def _speculate_after_s(self) -> float:
        """The silence after which the policy starts a speculative answer to the turn so far."""
        return self.policy.speculate_after_s(self.text, self._heard, unread=self._unread)

    # -- events -------------------------------------------------------------------------------

    def over_the_bot(self) -> None:
        """The turn about to open began by talking over the bot (a confirmed barge-in): its first
        words are more likely an opener than the whole turn (``TurnEndPolicy``)."""
        self._next_after_barge_in = True

    def opened(self, now: float) -> list[EndOfTurnAction]:
        """A caller turn began: its words start with those heard since the last turn, none open
        (a barge-in's first stretch, "Actually," before the words that confirmed it: the context's
        user message holds them too, unless ``dropped``). The caller's pause, if they are in one,
        stands: a barge-in is confirmed by its final transcript, which may come after the
        VAD's stop (the words of the stretch that opened the turn follow)."""
        acts = self._drop_speculation()
        self._open = True
        self._after_barge_in, self._next_after_barge_in = self._next_after_barge_in, False
        self._segments, self._before_open = self._before_open, []
        if not self._segments:
            self._heard = None  # else it is the last of those words'
        self._failed = False
        self.speculations = 0
        return acts

    def closed(self) -> list[EndOfTurnAction]:
        """The turn ended elsewhere (a watchdog, a barge-in, the call): nothing may stay pending."""
        acts = self._drop_speculation()
        self._open = False
        self._after_barge_in = False
        return acts

    def dropped(self) -> None:
        """The words heard since the last turn, none open, will never reach the LLM (a backchannel
        the bot talked through): the next turn does not begin with them."""
        self._before_open = []

    def speech_started(self, now: float) -> list[EndOfTurnAction]:
        """The caller speaks (the VAD): whatever a pause started is dropped; a turn goes on, and its
        words are stale until this speech's transcript comes."""
        self._unread = True
        self._silence_began_s = self._early_s = self._held_s = None
        self._interim = ""
        self._interim_heard = None
        self._probability = None
        return self._drop_speculation()

    def speech_resumed(self, now: float) -> list[EndOfTurnAction]:
        """The caller's level rose again after a pause it reported: before the VAD confirmed the
        pause, the pause is taken back; after, the turn end waits for the VAD (``RESUME_HOLD_S``)."""
        if self._silence_began_s is not None:
            self._held_s = now
            self._held_audio_s = 0.0
            return []
        if self._early_s is None:
            return []
        self._early_s = None
        self._probability = None
        if self._interim_heard is not None:  # words written at the pause: they end there
            self._interim, self._interim_heard = "", None
        return self._drop_speculation()

    def audio_read(self, duration_s: float, now: float) -> list[EndOfTurnAction]:
        """``duration_s`` more of the caller's audio was read (``now``) while a resumption holds the
        turn end: after ``RESUME_HOLD_S`` of it with no VAD start, the pause goes on."""
        if self._held_s is None:
            return []
        self._held_audio_s += duration_s
        return self.tick(now)

    def interim(
        self, text: str, now: float | None = None, heard: Heard | None = None
    ) -> list[EndOfTurnAction]:
        """The recognizer's running hypothesis for the stretch being spoken (``heard``: its
        confidence, from a recognizer that writes words at a pause). In a pause the level
        reported, words that read complete are answered speculatively now (``now``: when they
        came; None, never)."""
        self._interim = text.strip()
        self._interim_heard = heard
        if now is None or heard is None or self._early_s is None or self._silence_began_s is not None:
            return []
        return self._speculate_early(now)

    def pause_began(self, now: float, *, silence_began_s: float) -> list[EndOfTurnAction]:
        """The caller's level dropped at ``silence_began_s`` (seen at ``now``), before the VAD's stop:
        a turn that reads complete so far is answered speculatively now."""
        if self._silence_began_s is not None:
            return []
        self._early_s = silence_began_s
        self._probability = None
        return self._speculate_early(now)

    def _speculate_early(self, now: float) -> list[EndOfTurnAction]:
        """In a pause the level reported: speculate on what the caller said so far if it reads
        complete, dropping a speculation on other words."""
        assert self._early_s is not None
        text = self.heard_so_far
        if not self._open or not self._speculate or self._speculation == text:
            return []
        unread = self._unread and not self._interim  # no words yet for the stretch just spoken
        lead = self.policy.speculate_after_s(text, self._interim_heard, unread=unread)
        ready = now >= self._early_s + lead
        if len(words_of(text)) < EARLY_MIN_WORDS or not ready:
            stale = self._speculation is not None and self._interim_heard is not None
            return self._drop_speculation() if stale else []
        return [*self._drop_speculation(), *self._start_speculation(text)]

    def speech_stopped(self, now: float, *, silence_began_s: float) -> list[EndOfTurnAction]:
        """A pause began at ``silence_began_s`` (the VAD confirmed it at ``now``); recorded even
        between turns (the turn a barge-in opens may follow it)."""
        early, self._early_s = self._early_s, None
        if early is None:
            self._probability = None  # a pause not seen before: no audio verdict yet
        # the same pause as the level's (its audio verdict stands), from the start the VAD allows
        near = early is not None and silence_began_s - EARLY_SLACK_S <= early <= silence_began_s
        self._silence_began_s = early if near else silence_began_s
        self._held_s = None
        return self.tick(now)

    def transcript(self, text: str, now: float, heard: Heard | None = None) -> list[EndOfTurnAction]:
        """A final transcript of one stretch of the caller's speech, with how far the recognizer
        trusts its words (``heard``; None: it did not say)."""
        text = text.strip()
        if not text:
            return []
        self._unread = False
        self._heard = heard
        if not self._open:
            self._before_open.append(text)
            return []
        self._segments.append(text)
        self._interim = ""
        self._interim_heard = None
        acts: list[EndOfTurnAction] = []
        if self._speculation is not None and self._speculation != self.text:
            acts += self._drop_speculation()  # the answer was for other words
        return acts + self.tick(now)

    def smart_turn(self, probability: float, now: float) -> list[EndOfTurnAction]:
        """The audio model's probability that the turn is complete, for the current pause."""
        if self._silence_began_s is None and self._early_s is None:
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
        if self._held_s is not None:
            if self._held_audio_s < RESUME_HOLD_S - 1e-9 and now < self._held_s + RESUME_HOLD_BOUND_S:
                return []
            self._held_s = None  # the VAD heard no speech in it: the pause goes on
        began = self._silence_began_s
        text = self.text
        gap, reason = self._verdict()
        # deadlines are compared as times (what next_deadline_s gave), never as recomputed spans
        if now >= began + gap:
            self.last_reason = reason
            self._open = False
            self._after_barge_in = False
            self._silence_began_s = None
            if self._speculation == text and not self._failed:
                self._speculation = None
                return [Confirm(text)]
            return [*self._drop_speculation(), Answer(text)]
        acts: list[EndOfTurnAction] = []
        if self._speculate and self._speculation is None and now >= began + self._speculate_after_s():
            acts += self._start_speculation(text)
        return acts

    def _start_speculation(self, text: str) -> list[EndOfTurnAction]:
        self._speculation = text
        self._failed = False
        self.speculations += 1
        return [Speculate(text)]

    def _drop_speculation(self) -> list[EndOfTurnAction]:
        if self._speculation is None:
            return []
        self._speculation = None
        self._failed = False
        return [Cancel()]


__all__ = [
    "EARLY_MIN_WORDS",
    "EARLY_SLACK_S",
    "RESUME_HOLD_BOUND_S",
    "RESUME_HOLD_S",
    "Answer",
    "Cancel",
    "Confirm",
    "EndOfTurn",
    "EndOfTurnAction",
    "Speculate",
]
