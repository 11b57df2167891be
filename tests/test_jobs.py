"""Jobs: model failures become results, and a batched frame run equals the jobs run one by one."""

from __future__ import annotations

from toy_backends import BatchToyFrameBackend, ToneBackend

from tts_service.engine.jobs import FrameJob, UnitJob, run_frame_batch
from tts_service.engine.ports import VoiceState
from tts_service.engine.segmenter import Boundary


def _frame_job(backend: BatchToyFrameBackend, state: VoiceState, text: str, steps: int) -> FrameJob:
    return FrameJob(
        epoch=0, turn_id=1, backend=backend, voice_state=state, feed=(text,), end_text=True, steps=steps
    )


def test_batched_frame_jobs_equal_individual_runs() -> None:
    """run_frame_batch gives every job the same steps its own run() would give."""
    texts = ["one two three", "alphabetical", "a bb cccc dddddd"]
    solo = BatchToyFrameBackend()
    batched = BatchToyFrameBackend()
    expected = [_frame_job(solo, solo.new_voice_state("a"), t, 4).run() for t in texts]
    jobs = [_frame_job(batched, batched.new_voice_state("a"), t, 4) for t in texts]
    got = run_frame_batch(batched, jobs)
    for e, g in zip(expected, got, strict=True):
        assert g.error is None
        assert [s.words for s in g.frame_steps] == [s.words for s in e.frame_steps]
        assert [s.finished for s in g.frame_steps] == [s.finished for s in e.frame_steps]
        assert all((a.audio == b.audio).all() for a, b in zip(g.frame_steps, e.frame_steps, strict=True))
    assert batched.batch_sizes[0] == 3


def test_a_failing_unit_job_returns_a_typed_error() -> None:
    """A model exception becomes a SynthesisError in the result, never an exception."""
    backend = ToneBackend(fail_on="boom")
    job = UnitJob(
        epoch=0,
        turn_id=1,
        backend=backend,
        voice_state=backend.new_voice_state("a"),
        text="boom now",
        boundary=Boundary.SENTENCE,
        speed=1.0,
        seed=None,
    )
    result = job.run()
    assert result.unit_audio is None and result.error is not None and result.error.code == "synthesis_failed"
