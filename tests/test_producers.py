"""Producers turn job results into audio chunks for the session to place (no timeline in sight)."""

from __future__ import annotations

from toy_backends import ToneBackend, ToyFrameBackend

from tts_service.engine.jobs import FrameJob, UnitJob
from tts_service.engine.ports import VoiceState
from tts_service.engine.producers import FrameProducer, JobContext, UnitProducer, make_producer
from tts_service.engine.segmenter import Boundary, Unit
from tts_service.engine.types import frame_samples

RATE = 8000


def ctx(state: VoiceState) -> JobContext:
    return JobContext(epoch=0, turn_id=1, voice_state=state, speed=1.0, reset_context=False)


def test_each_unit_comes_back_ending_on_a_frame_edge_and_its_pad_shortens_the_next_pause() -> None:
    """Lead + audio + tail is whole frames; the next unit's lead silence is reduced by that tail."""
    backend = ToneBackend()
    producer = UnitProducer(backend, RATE, refill_below_ms=1200, seed=0)
    state = backend.new_voice_state("a")
    producer.add(Unit("First sentence here.", 0, Boundary.SENTENCE))
    producer.add(Unit("Second one.", 1, Boundary.SENTENCE))
    chunks = []
    for _ in range(2):
        job = producer.next_job(ctx(state), pending_samples=0, flushing=True)
        assert isinstance(job, UnitJob)
        (chunk,) = producer.complete(job.run())
        chunks.append(chunk)
    frame = frame_samples(RATE)
    for chunk in chunks:
        assert chunk.unit and (chunk.lead_silence + len(chunk.samples) + chunk.tail_silence) % frame == 0
    assert chunks[0].lead_silence == 0  # the first unit of a turn follows no pause
    assert chunks[1].lead_silence > 0  # the sentence pause, less the first unit's padding
    assert [w.word for c in chunks for w in c.words] == ["First", "sentence", "here.", "Second", "one."]
    assert all(0 <= w.start_sample <= w.end_sample <= len(c.samples) for c in chunks for w in c.words)
    assert producer.finished()


def test_a_unit_producer_waits_while_enough_audio_is_pending() -> None:
    """No job while at least ``refill_below_ms`` of audio waits unheard."""
    backend = ToneBackend()
    producer = UnitProducer(backend, RATE, refill_below_ms=1000, seed=None)
    producer.add(Unit("Hello.", 0, Boundary.SENTENCE))
    state = backend.new_voice_state("a")
    assert producer.next_job(ctx(state), pending_samples=RATE, flushing=False) is None
    assert producer.next_job(ctx(state), pending_samples=RATE - 1, flushing=False) is not None


def test_frame_chunks_carry_their_own_marks_and_a_discard_restarts_the_stream() -> None:
    """Each step is a chunk whose marks count from its own first sample; discard starts over."""
    backend = ToyFrameBackend()
    producer = make_producer(backend, RATE, refill_below_ms=1200, lookahead_frames=3, seed=None)
    assert isinstance(producer, FrameProducer)
    state = backend.new_voice_state("a")
    producer.add(Unit("one two", 0, Boundary.SENTENCE))
    job = producer.next_job(ctx(state), pending_samples=0, flushing=False)
    assert isinstance(job, FrameJob) and job.steps == 3
    chunks = producer.complete(job.run())
    assert chunks and all(not c.unit for c in chunks)
    for chunk in chunks:
        assert all(0 <= w.start_sample <= len(chunk.samples) for w in chunk.words)
    assert producer.next_job(ctx(state), pending_samples=3 * frame_samples(RATE), flushing=False) is None
    producer.discard()
    assert producer.held_chars == 0
    producer.add(Unit("again", 1, Boundary.SENTENCE))
    job = producer.next_job(ctx(state), pending_samples=0, flushing=False)
    assert isinstance(job, FrameJob) and job.discard_first
