"""A barge-in that can be taken back: pause at once, then interrupt or resume by what was said.

    barge = BargeIn()
    barge.bot_started(now)
    acts = barge.speech_started(now)             # [PauseBot()]: silent within one frame
    acts = barge.peek("mm", now, heard)          # [DuckBot()]: no turn so far: on, quietly
    acts = barge.words("yeah", now, final=True)  # [DuckBot()]: a backchannel's words: on, quietly
    acts = barge.speech_stopped(now)             # []: the caller may go on
    acts = barge.audio_read(0.3, now + 0.3)      # [ResumeBot(dropped="yeah")]: 0.3 s of quiet audio
    acts = barge.words("when do you close", now, final=True)   # [Interrupt("when do you close")]

Events in, actions out:

* ``PauseBot()``: the caller started speaking over the bot: stop its audio now, keep the rest;
* ``DuckBot()``: what the caller said reads as a backchannel: the answer goes on from exactly
  where it stopped, quietly, until the caller has stayed quiet (then ``ResumeBot``) or goes on
  (then ``PauseBot`` again);
* ``ResumeBot(dropped)``: it was a backchannel (``dropped`` is its transcript, which must not
  reach the LLM) or a noise with no words: the answer goes on from exactly where it stopped;
* ``Interrupt(words)``: the caller took the turn: the bot's turn is over; the caller's turn
  begins (the heard words stay in the context);
* ``StartTurn()``: the caller started speaking while the bot was silent: an ordinary turn.

The bot is silent from the first ``PauseBot``, so deciding late costs the caller nothing, and a
backchannel is judged on the audio as well as on the words, since the words of one are the ones
a phone-line recognizer gets wrong most ("uh huh" read "and", "sure" read "to learn"):

* speech over the bot that lasts longer than ``backchannel_max_s`` (VAD start to its stop, or
  to now) is a turn, whatever its words: interims interrupt only then (with words that are not
  all backchannel), and a final transcript of such speech interrupts;
* a shorter stretch is a turn if it has the syllables of a sentence: ``turn_min_words`` words
  or more, not all backchannel, whatever they are (the recognizer's words are wrong, their
  number much less so: "When do you close?" read "when you close", "Uh huh." read "at hand"),
  unless they are a guess of a recognizer that writes fluent words for a sound it could not
  hear (``Heard.fluent``: whisper) and does not trust them;
* or if it holds a stop word ("wait", "stop") the recognizer trusts (``confidence.Heard``).
  Anything else short, one or two words that are no stop word, is a backchannel, and the bot
  resumes: "Mm hmm." read "the hand" at high confidence as much as a real "Okay.". A transcript
  that carries no confidence (another STT's) counts as trusted.

A backchannel is talked through, as a person speaking does when the listener says "mm hmm": the
moment the recognizer's words for the speech so far are all a backchannel's ("yeah", "uh huh",
"okay"), whether written at the caller's first pause (whisper's preview, some 140 ms after their
last sound) or as the final transcript, the answer goes on ducked (``DuckBot``), a stretch of
speech no longer than ``backchannel_max_s`` only. It comes back to full level once the caller has
been quiet ``resume_quiet_s`` after the VAD's stop; if the caller goes on meanwhile (the VAD, or
the level, hears them again: "Okay, ... sure", "Yeah, but ..."), it pauses again. Words that
are not a backchannel's and that the recognizer trusts ("actually", or "the hand" at 0.9 for a
misheard "mm hmm") are not ducked over (one or two it does not trust, no stop word, are):
the answer resumes at full level once the caller has been quiet ``resume_quiet_s`` after the
VAD's stop, not at the stop, since "Actually, ..." and "Hold on, ..." pause after their first
word, and a bot that resumed in that pause talked over the rest of the sentence. With no words
``no_words_s`` after the caller stops, or ``max_pause_s`` into a pause, the bot resumes. These
waits after the VAD's stop count the caller's audio (``audio_read``, each frame as it is read),
not the clock: on a loaded machine the frames, and the VAD's start in them, are read late, and
"Actually, | can we ..." was resumed over when 0.3 s had passed by the clock within 0.12 s of
audio. Should the audio stop coming, the clock ends a wait ``QUIET_BOUND_S`` after the stop.
Sans-I/O: the caller feeds ``audio_read`` while ``counting_quiet`` and calls ``tick`` at
``next_deadline_s()``.

A backchannel is talked through before it ends where the recognizer can read speech as it goes on
(``peek``: whisper on the speech so far, every 150 ms from about 0.3 s in, while the caller speaks
over the bot): "Mm hmm." is 0.5-0.7 s long, so waiting for its words at the pause leaves the
caller 0.4-0.6 s of silence. A peek ducks the answer unless the words so far already open a turn
(``opens_turn``): a stop word, a word the recognizer trusts that no backchannel has ("would" of "I
would ...", "do" of "When do ..."), or a first word it gives ``first_word_trust`` or more that
opens no backchannel ("Sorry", "Actually"); a last word that begins a backchannel's word counts
as that word (the peek cut it short: "sound" of "Sounds good"). A hum the recognizer cannot
spell, a guess at low confidence or a backchannel's words duck. A ducked answer pauses again the
moment a peek finds a turn ("Yeah, can you also ..."), and nothing ducks it again before the
verdict; or once the speech outlasts ``backchannel_max_s`` with words that are not all a
backchannel's; while peeks come, the caller's level heard again after a pause ("Okay, ... sure")
leaves the answer ducked: the next peek decides. Whisper tiny, 0.3 s into the speech, reads 83 %
of backchannels as none (62 of 75 in three voices; 55 before a phrase read over and over kept its
first reading and a last word cut short counted as the backchannel's) and 67 % of barge-ins as a
turn (50 of 75; hibari a fifth down, which it reads worst, 11 of 25: ``benchmarks/peek_bench.py``
on a machine without AVX-512, 54 ms a peek); a barge-in read wrong is talked over,
quietly, until the next peek, and a backchannel read wrong waits, silent, for its words at the
pause.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass

from agent.turn_taking.confidence import TRUST, Heard
from agent.turn_taking.cues import BACKCHANNELS, STOP_WORDS, interrupts, words_of


@dataclass(frozen=True, slots=True)
class PauseBot:
    """Stop the bot's audio now; keep what it has not said."""


@dataclass(frozen=True, slots=True)
class DuckBot:
    """Continue the bot's paused answer from where it stopped, quietly (a backchannel, so far)."""


@dataclass(frozen=True, slots=True)
class ResumeBot:
    """Continue the bot's answer from where it stopped (or bring a ducked one back to full level);
    ``dropped`` is the transcript to forget."""

    dropped: str = ""


@dataclass(frozen=True, slots=True)
class Interrupt:
    """The caller really took the turn: the bot's answer ends with what was heard; ``words``:
    what the caller said that made it so (for logs)."""

    words: str = ""


@dataclass(frozen=True, slots=True)
class StartTurn:
    """The caller began speaking while the bot was silent."""


BargeInAction = PauseBot | DuckBot | ResumeBot | Interrupt | StartTurn


#: the fewest letters of a peek's last word read as the backchannel word it begins (``BargeIn``)
MIN_CUT_SHORT = 3
#: a wait after the VAD's stop (``resume_quiet_s``, ``no_words_s``) counts the caller's audio; the
#: clock ends it this long after the stop at the latest (audio that stopped coming)
QUIET_BOUND_S = 1.0


class BargeIn:
    """The caller speaking while the bot speaks; see the module docstring."""

    def __init__(
        self,
        *,
        backchannels: Sequence[str] = BACKCHANNELS,
        stop_words: Collection[str] = STOP_WORDS,
        no_words_s: float = 0.6,
        max_pause_s: float = 3.0,
        backchannel_max_s: float = 1.0,
        turn_min_words: int = 3,
        resume_quiet_s: float = 0.3,
        trust: float = TRUST,
        first_word_trust: float = 0.15,
    ) -> None:
        if min(no_words_s, max_pause_s, backchannel_max_s, resume_quiet_s) <= 0 or turn_min_words < 1:
            raise ValueError("the waits, backchannel_max_s and turn_min_words must be positive")
        self._backchannels = tuple(backchannels)
        self._stop_words = frozenset(stop_words)
        self._no_words_s = no_words_s
        self._max_pause_s = max_pause_s
        #: VAD start to now: a backchannel is shorter ("Yeah.", "Mm hmm.", "Okay, sure." are
        #: 0.5-0.9 s of speech in hibari's voice, 0.15-0.2 s more from VAD start to its stop)
        self._backchannel_max_s = backchannel_max_s
        #: words that make short speech a turn (the backchannels above have one or two)
        self._turn_min_words = turn_min_words
        self._resume_quiet_s = resume_quiet_s
        self._trust = trust
        #: a peek's first word at this posterior or more is what the caller began with: a hum is
        #: written as nothing or as a guess at 0.05-0.1; "Actually" cut short is "actual" at
        #: 0.16-0.3 (``benchmarks/peek_bench.py``, 0.3 s in: 60 of 75 backchannels ducked and 53
        #: of 75 barge-ins kept paused at 0.15; 62 and 47 at 0.2; 58 and 59 at 0.1)
        self._first_word_trust = first_word_trust
        #: every word of the backchannels ("i" and "see" of "i see"): a peek's words so far may
        #: be the start of one
        self._backchannel_words = frozenset(w for phrase in self._backchannels for w in words_of(phrase))
        #: the same, in order: a word cut short is read as the first of them it begins, on every run
        self._backchannel_spellings = tuple(sorted(self._backchannel_words))
        self._speaking_since_s: float | None = None
        self._stretch_s = 0.0  # the last stretch of speech, VAD start to stop
        self._bot_speaking = False
        self._paused_at_s: float | None = None
        #: the paused answer goes on quietly (``DuckBot``), until the verdict
        self._ducked = False
        self._quiet_since_s: float | None = None
        #: the caller's audio read since ``_quiet_since_s``: what the waits after the stop count
        self._quiet_audio_s = 0.0
        self._heard: list[str] = []
        #: peeks came during this pause: the recognizer reads the speech as it goes on
        self._peeked = False
        #: the last peek's words are all a backchannel's ("okay sure")
        self._peeked_backchannel = False
        #: a peek found a turn: nothing ducks the answer again until the verdict (the words of a
        #: sentence read at its comma, "actually" at 0.1, are no backchannel's)
        self._turn_peeked = False
        #: the bot resumed over speech whose words had not come (a noise, or a recognizer running
        #: late on a loaded machine): the final words of that speech may still make it a turn
        self._resumed_unheard = False
        #: pauses taken back (the bot resumed) and confirmed, for metrics
        self.resumed = 0
        self.interrupted = 0

    @property
    def paused(self) -> bool:
        """Speech over the bot is being judged (the answer is paused, or ducked)."""
        return self._paused_at_s is not None

    @property
    def ducked(self) -> bool:
        return self._ducked

    @property
    def turn_peeked(self) -> bool:
        """A peek found a turn in the speech over the bot: later peeks change nothing."""
        return self._turn_peeked

    @property
    def counting_quiet(self) -> bool:
        """The caller stopped over the paused bot: feed ``audio_read`` every frame read."""
        return self._paused_at_s is not None and self._quiet_since_s is not None

    def next_deadline_s(self) -> float | None:
        """When ``tick`` next has something to decide by the clock (the audio's waits decide in
        ``audio_read``; here only their bound)."""
        if self._paused_at_s is None:
            return None
        due = self._paused_at_s + self._max_pause_s
        if self._quiet_since_s is not None:
            due = min(due, self._quiet_since_s + max(self._quiet_wait_s(), QUIET_BOUND_S))
        if (outlasted := self._outlasted_at_s()) is not None:
            due = min(due, outlasted)
        return due

    def audio_read(self, duration_s: float, now: float) -> list[BargeInAction]:
        """``duration_s`` more of the caller's audio was read (after the VAD's frames for it):
        once it makes the wait after their stop, the verdict of that wait."""
        if not self.counting_quiet:
            return []
        self._quiet_audio_s += duration_s
        return self.tick(now)

    def _quiet_wait_s(self) -> float:
        return self._resume_quiet_s if self._heard else self._no_words_s

    # -- the bot ------------------------------------------------------------------------------

    def bot_started(self, now: float) -> list[BargeInAction]:
        self._bot_speaking = True
        return []

    def bot_stopped(self, now: float) -> list[BargeInAction]:
        """The bot's audio ended (its answer was done, or a confirmed interruption cut it)."""
        self._bot_speaking = False
        self._resumed_unheard = False
        return []

    # -- the caller ---------------------------------------------------------------------------

    def speech_started(self, now: float) -> list[BargeInAction]:
        self._speaking_since_s = now
        self._resumed_unheard = False  # the words of new speech decide in its own pause
        if self._paused_at_s is not None:
            self._quiet_since_s = None  # still (or again) speaking over the paused bot
            return self.speech_resumed(now)
        if not self._bot_speaking:
            return [StartTurn()]
        self._paused_at_s = now
        self._quiet_since_s = None
        self._heard = []
        self._peeked = self._peeked_backchannel = self._turn_peeked = False
        return [PauseBot()]

    def speech_resumed(self, now: float) -> list[BargeInAction]:
        """The caller's level says they speak again (before the VAD would): a ducked answer
        pauses again; the verdict waits for what they say. Where peeks come, it stays ducked: the
        next peek (or the speech's length) decides."""
        return [] if self._peeked else self._unduck()

    def speech_stopped(self, now: float) -> list[BargeInAction]:
        if self._speaking_since_s is not None:
            self._stretch_s = now - self._speaking_since_s
        self._speaking_since_s = None
        if self._paused_at_s is None:
            return []
        self._quiet_since_s = now  # a backchannel heard, or words still to come: the quiet decides
        self._quiet_audio_s = 0.0
        return []

    def words(self, text: str, now: float, *, final: bool, heard: Heard | None = None) -> list[BargeInAction]:
        """A transcript (interim or final) of what the caller says over the paused bot, with how
        far the recognizer trusts it (``heard``; None: it did not say, the words count). An
        interim with confidence is a recognizer's preview at a pause and decides nothing."""
        said = words_of(text)
        if self._paused_at_s is None and final and said and self._resumed_unheard:
            return self._late_words(text, said, heard)
        if self._paused_at_s is None or not said:
            return []
        since = self._speaking_since_s
        long = (now - since if since is not None else self._stretch_s) > self._backchannel_max_s
        takes_turn = interrupts(text, self._backchannels, self._stop_words)
        if not final and heard is not None:
            # words a recognizer wrote at a pause (whisper): the same words come as the final
            # at the VAD's stop, a moment later, and decide then. An interruption decided on
            # this preview would drop that final: Pipecat's interruption flushes the frames
            # queued behind the one that caused it, and the turn would have no words. A
            # backchannel's words let the answer go on, ducked, at once
            return self._duck() if self._listening(said, heard, takes_turn, long) else []
        if final:
            if self._final_is_turn(said, heard, takes_turn=takes_turn, long=long):
                return self._end([Interrupt(text.strip())], interrupted=True)
            self._heard.append(text.strip())  # a backchannel: resumed once the caller stays quiet
            return self._duck() if self._listening(said, heard, takes_turn, long) else []
        if long and takes_turn:  # a running hypothesis: only a turn's length makes it sure
            return self._end([Interrupt(text.strip())], interrupted=True)
        return []

    def peek(self, text: str, now: float, heard: Heard) -> list[BargeInAction]:
        """The recognizer's words (``heard``) for the speech over the paused bot so far, while it
        goes on: duck the answer unless they open a turn; pause a ducked one again if they do."""
        if self._paused_at_s is None:
            return []
        self._peeked = True
        said = words_of(text)
        self._peeked_backchannel = bool(said) and not interrupts(text, self._backchannels, self._stop_words)
        since = self._speaking_since_s
        long = since is not None and now - since > self._backchannel_max_s
        if long or self.opens_turn(heard):
            self._turn_peeked = True
            return self._unduck()
        return self._duck()

    def opens_turn(self, heard: Heard) -> bool:
        """Whether the words so far of speech still going on already make it a turn: a stop word
        (at half the trust), a trusted word no backchannel has, or a first word that opens no
        backchannel at ``first_word_trust`` or more. A hum read as nothing, a low guess or a
        backchannel's words so far do not; nor does a last word that begins one of theirs
        (``_cut_short``)."""
        words = [(w, p) for spelled, p in heard.words for w in words_of(spelled)]
        if words:
            words[-1] = (self._cut_short(words[-1][0]), words[-1][1])
        for word, p in words:
            if word in self._stop_words and p >= self._trust / 2:
                return True
            if word not in self._backchannel_words and p >= self._trust:
                return True
        if not words:
            return False
        first, p = words[0]
        return first not in self._backchannel_words and p >= self._first_word_trust

    def _cut_short(self, word: str) -> str:
        """The backchannel word that ``word``, the last of speech read while it goes on, begins
        (``MIN_CUT_SHORT`` letters or more: "sound" of "sounds good", "exact" of "exactly"), else
        ``word``: a peek ends wherever the audio does, mid-word as often as not, and whisper
        writes what it heard so far. On ``benchmarks/peek_bench.py``'s 75 backchannels read 0.3 s
        in, 3 more are ducked; none of its 75 barge-ins is read otherwise."""
        if len(word) < MIN_CUT_SHORT or word in self._backchannel_words:
            return word
        return next((w for w in self._backchannel_spellings if w.startswith(word)), word)

    def tick(self, now: float) -> list[BargeInAction]:
        if self._paused_at_s is None:
            return []
        outlasted = self._outlasted_at_s()
        if outlasted is not None and now >= outlasted:
            return self._unduck()  # longer than a backchannel, and not all its words: a turn
        due = self.next_deadline_s()
        waited = self._quiet_since_s is not None and self._quiet_audio_s >= self._quiet_wait_s() - 1e-9
        if waited or (due is not None and now >= due):
            unheard = not self._heard
            acts = self._end([ResumeBot(" ".join(self._heard))], interrupted=False)
            self._resumed_unheard = unheard and self._bot_speaking
            return acts
        return []

    def _final_is_turn(self, said: list[str], heard: Heard | None, *, takes_turn: bool, long: bool) -> bool:
        """Whether final words over the bot make a turn: words that interrupt (``takes_turn``), and
        speech longer than a backchannel, a sentence's number of words, or a trusted stop word."""
        trusted = heard is None or heard.trusted(self._trust)
        # the number of words counts unless they are a fluent recognizer's guess (whisper wrote
        # "that's what I'm doing" for the "sure" of "Okay, sure.")
        counted = trusted or heard is None or not heard.fluent
        sentence = len(said) >= self._turn_min_words and counted
        stop = trusted and any(w in self._stop_words for w in said)
        return takes_turn and (long or sentence or stop)

    def _late_words(self, text: str, said: list[str], heard: Heard | None) -> list[BargeInAction]:
        """The final words of speech the bot resumed over before they came (``no_words_s`` is a
        noise's wait, and a loaded machine's recognizer can take longer): a turn's words still
        interrupt the resumed answer, by the rules of a final in the pause; others change nothing."""
        self._resumed_unheard = False
        takes_turn = interrupts(text, self._backchannels, self._stop_words)
        if self._final_is_turn(said, heard, takes_turn=takes_turn, long=False):
            self.resumed -= 1  # it was no pause taken back after all
            return self._end([Interrupt(text.strip())], interrupted=True)
        return []

    def _outlasted_at_s(self) -> float | None:
        """When a ducked answer over speech that peeks follow, whose words are not all a
        backchannel's, pauses: once the speech outlasts ``backchannel_max_s`` (None: it does not)."""
        since = self._speaking_since_s
        if not self._ducked or not self._peeked or self._peeked_backchannel or since is None:
            return None
        return since + self._backchannel_max_s

    def _listening(self, said: list[str], heard: Heard | None, takes_turn: bool, long: bool) -> bool:
        """Words to talk through: short speech, and a backchannel's words, or one or two words the
        recognizer does not trust and no stop word ("lehma" for a "Mm hmm."); a word it trusts
        that is no backchannel's ("actually") waits for the caller to stay quiet."""
        if long:
            return False
        guessed = heard is not None and not heard.trusted(self._trust) and len(said) <= 2
        return not takes_turn or (guessed and not any(w in self._stop_words for w in said))

    def _duck(self) -> list[BargeInAction]:
        if self._ducked or self._turn_peeked:
            return []
        self._ducked = True
        return [DuckBot()]

    def _unduck(self) -> list[BargeInAction]:
        if not self._ducked:
            return []
        self._ducked = False
        return [PauseBot()]

    def _end(self, acts: list[BargeInAction], *, interrupted: bool) -> list[BargeInAction]:
        self._paused_at_s = None
        self._ducked = False
        self._quiet_since_s = None
        self._heard = []
        self._peeked = self._peeked_backchannel = self._turn_peeked = False
        if interrupted:
            self.interrupted += 1
            self._bot_speaking = False
        else:
            self.resumed += 1
        return acts


__all__ = [
    "QUIET_BOUND_S",
    "BargeIn",
    "BargeInAction",
    "DuckBot",
    "Interrupt",
    "PauseBot",
    "ResumeBot",
    "StartTurn",
]
