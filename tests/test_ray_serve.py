"""``warmline serve --ray``: two Ray Serve replicas on a local Ray, bound to loopback.

One server process (as a container runs it: a session of its own) serves the whole module:
sessions spread over both replicas, each turn's audio recognised; ``/healthz`` and ``/metrics``
cover both; a replica killed mid-turn costs only its own calls, which reconnect to a live one;
SIGTERM drains every replica (the turn finishes, ``done``, 1001; a newcomer gets 1013), exits 0
and leaves no Ray process behind. The hook that lets a replica Ray stops alone drain
(``transports.ray_compat``) is checked against Ray's own class.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import json
import os
import re
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("ray.serve", reason="Ray Serve (the `ray` extra) is not installed")

from asr import DISTRACTORS, heard
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed
from ws_helpers import WAIT_S, Turn, ready, receive_until, send

from transports.ray.cluster import free_port
from transports.ray_compat import LOCAL_ONLY_ENV
from tts_service import wire as wp

Recognize = Callable[..., str | None]
ROOT = Path(__file__).resolve().parent.parent
#: a local Ray and two replicas with their models start within this on a loaded 2-core machine
START_S = 240.0
SERVE = (sys.executable, "-m", "agent.cli", "serve", "--ray", "--replicas", "2", "--replica-cpus", "0.25")
SERVE_DRAIN = ("--drain-s", "20")
SENTENCES = (
    "your table for two is ready now",
    "we open at nine in the morning",
    "the kitchen closes at ten tonight",
    "please wait a moment while i check",
)


@dataclass
class RayServer:
    proc: subprocess.Popen[bytes]
    address: str
    log: Path

    def url(self) -> str:
        return f"ws://{self.address}/ws"

    def get(self, path: str) -> tuple[int, bytes]:
        try:
            with urllib.request.urlopen(f"http://{self.address}{path}", timeout=10) as resp:
                return int(resp.status), resp.read()
        except urllib.error.HTTPError as exc:
            return exc.code, exc.read()

    def healthz(self) -> dict[str, Any]:
        status, body = self.get("/healthz")
        assert status == 200, body
        health: dict[str, Any] = json.loads(body)
        return health

    def output(self) -> str:
        return self.log.read_text(errors="replace")


def session_processes(sid: int) -> list[str]:
    """Processes (``pid command``) in the session ``sid`` (the server and all Ray started)."""
    out = subprocess.run(["ps", "-eo", "sid=,pid=,args="], capture_output=True, text=True, check=True).stdout
    return [line.split(None, 1)[1] for line in out.splitlines() if line.split()[0] == str(sid)]


@contextlib.contextmanager
def started_server(log: Path) -> Iterator[RayServer]:
    """``warmline serve --ray`` with two replicas, its output in ``log``; stopped at the end."""
    port = free_port("127.0.0.1")
    with log.open("wb") as out:  # a file, not a pipe: nobody reads Ray's chatter while it runs
        proc = subprocess.Popen(
            [*SERVE, *SERVE_DRAIN, "--port", str(port)],
            cwd=ROOT,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # as in a container: signals reach the server alone
        )
    server = RayServer(proc, f"127.0.0.1:{port}", log)
    try:
        deadline = time.monotonic() + START_S
        while "serving on http://" not in server.output():
            assert proc.poll() is None, server.output()[-3000:]
            assert time.monotonic() < deadline, server.output()[-3000:]
            time.sleep(0.5)
        yield server
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGINT)
            proc.send_signal(signal.SIGINT)
            try:
                proc.wait(60)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()


@pytest.fixture(scope="module")
def ray_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RayServer]:
    with started_server(tmp_path_factory.mktemp("ray") / "serve.log") as server:
        yield server


async def speak(ws: ClientConnection, text: str) -> Turn:
    await send(ws, cmd="start", text=text)
    return await receive_until(ws, "done")


# -- Ray's class, as the hook expects it ----------------------------------------------------------


def test_the_graceful_shutdown_hook_runs_before_rays_own_shutdown() -> None:
    """Contract: Serve stops a replica through ``Replica.perform_graceful_shutdown`` (a coroutine);
    the hook runs its callbacks first, then Ray's method, once installed however often asked."""
    from ray.serve._private import replica as replica_module

    from transports import ray_compat

    replica_class: Any = replica_module.Replica
    original = replica_class.perform_graceful_shutdown
    assert inspect.iscoroutinefunction(original)
    calls: list[str] = []

    async def ray_shutdown(self: object) -> str:
        calls.append("ray")
        return "stopped"

    try:
        replica_class.perform_graceful_shutdown = ray_shutdown
        ray_compat.on_graceful_shutdown(lambda: calls.append("first"))
        ray_compat.on_graceful_shutdown(lambda: calls.append("second"))
        assert asyncio.run(replica_class.perform_graceful_shutdown(object())) == "stopped"
        assert calls == ["first", "second", "ray"]
    finally:
        replica_class.perform_graceful_shutdown = original
        with contextlib.suppress(AttributeError):
            del replica_class._warmline_hooked
        ray_compat._callbacks.clear()


# -- the live server --------------------------------------------------------------------------------


def test_twenty_sessions_spread_over_both_replicas_and_every_turn_is_heard(
    ray_server: RayServer, recognizer: Recognize
) -> None:
    async def client(i: int) -> tuple[str, str, Turn]:
        async with connect(ray_server.url()) as ws:
            replica = (await ready(ws))["replica"]
            sentence = SENTENCES[i % len(SENTENCES)]
            return replica, sentence, await speak(ws, sentence)

    async def main() -> list[tuple[str, str, Turn]]:
        return await asyncio.wait_for(asyncio.gather(*(client(i) for i in range(20))), 180)

    results = asyncio.run(main())
    assert len({replica for replica, _, _ in results}) == 2
    for _, sentence, turn in results:
        assert recognizer(turn.pcm(), 24000, [*SENTENCES, *DISTRACTORS]) == heard(sentence)


def test_healthz_lists_both_replicas_and_metrics_cover_both(ray_server: RayServer) -> None:
    health = ray_server.healthz()
    replicas = health["replicas"]
    assert len(replicas) == 2 and health["replica"] in {r["replica"] for r in replicas}
    assert all(r["status"] == "ok" and r["sessions"] == 0 and r["pid"] > 0 for r in replicas)
    status, body = ray_server.get("/metrics")
    assert status == 200
    sent = re.findall(
        r'^warmline_ws_frames_sent_total\{replica="([^"]+)"\} ([0-9.e+]+)$', body.decode(), re.M
    )
    assert {replica for replica, _ in sent} == {r["replica"] for r in replicas}
    assert all(float(value) > 0 for _, value in sent)  # the last test's twenty turns, on both


def test_bursts_of_eight_calls_split_four_and_four_and_a_second_burst_evens_out(
    ray_server: RayServer,
) -> None:
    """Eight WebSockets opened at once land 4+4 or 5+3 (the router counts each call as it is
    routed, not when the replica reports it); eight more while those are open even them out."""

    async def burst(n: int) -> list[tuple[ClientConnection, str]]:
        async def one() -> tuple[ClientConnection, str]:
            ws = await connect(ray_server.url())
            return ws, (await ready(ws))["replica"]

        return list(await asyncio.wait_for(asyncio.gather(*(one() for _ in range(n))), 120))

    def split(opened: list[tuple[ClientConnection, str]]) -> list[int]:
        counts: dict[str, int] = {}
        for _, replica in opened:
            counts[replica] = counts.get(replica, 0) + 1
        return sorted(counts.values(), reverse=True)

    async def main() -> list[list[int]]:
        splits = []
        for _ in range(3):
            opened = await burst(8)
            splits.append(split(opened))
            await asyncio.gather(*(ws.close() for ws, _ in opened))
            deadline = time.monotonic() + 30
            while any(r["connections"] for r in ray_server.healthz()["replicas"]):
                assert time.monotonic() < deadline
                await asyncio.sleep(0.25)
        first = await burst(8)
        second = await burst(8)
        splits.append(split(first + second))
        await asyncio.gather(*(ws.close() for ws, _ in first + second))
        return splits

    splits = asyncio.run(main())
    # as even as live sessions allow: 4+4, or 5+3 (seen now and then on a loaded 2-core machine)
    assert all(split in ([4, 4], [5, 3]) for split in splits[:3]), splits
    assert splits[3] in ([8, 8], [9, 7]), splits


def test_a_killed_replica_costs_only_its_own_calls_which_reconnect_at_once(
    ray_server: RayServer, recognizer: Recognize
) -> None:
    """Six calls mid-turn; one replica's process is killed: its calls see a close, reconnect to
    the same URL and finish a later turn on a live replica; the other calls never notice."""
    pids = {r["replica"]: r["pid"] for r in ray_server.healthz()["replicas"]}
    long_sentence = "thank you for calling, your table for two is ready now, please come in"

    async def main() -> tuple[str, list[tuple[str, Turn | None, Turn | None]]]:
        clients = [await connect(ray_server.url()) for _ in range(6)]
        try:
            replicas = [(await ready(ws))["replica"] for ws in clients]
            assert len(set(replicas)) == 2, replicas  # the fewest-sessions router spreads six sessions
            victim = replicas[0]
            for ws in clients:
                await send(ws, cmd="start", text=long_sentence)
            for ws in clients:
                await ws.recv()  # every turn is under way
            os.kill(pids[victim], signal.SIGKILL)

            async def finish(ws: ClientConnection, replica: str) -> tuple[str, Turn | None, Turn | None]:
                try:
                    first: Turn | None = await receive_until(ws, "done")
                except ConnectionClosed:
                    first = None
                if replica != victim:
                    return replica, first, None
                async with connect(ray_server.url()) as again:  # the same URL, at once
                    assert (await ready(again))["replica"] != victim
                    return replica, first, await speak(again, SENTENCES[1])

            return victim, await asyncio.wait_for(
                asyncio.gather(*(finish(ws, r) for ws, r in zip(clients, replicas, strict=True))), 120
            )
        finally:
            for ws in clients:
                await ws.close()

    victim, results = asyncio.run(main())
    for replica, first, later in results:
        if replica == victim:
            assert first is None, "a call on the killed replica finished its turn"
            assert later is not None
            assert recognizer(later.pcm(), 24000, [*SENTENCES, *DISTRACTORS]) == heard(SENTENCES[1])
        else:
            assert first is not None and later is None
            assert recognizer(first.pcm(), 24000, [long_sentence, *SENTENCES, *DISTRACTORS]) == heard(
                long_sentence
            )


def test_the_remote_pipecat_service_on_the_ray_deployment_records_exactly_what_was_heard(
    ray_server: RayServer, recognizer: Recognize
) -> None:
    """The bot's code of the remote mode, pointed at the Ray proxy: a whole answer heard and
    recorded; a barge-in after six played frames leaves their words, and only them, in the context."""
    from pipecat.frames.frames import TTSAudioRawFrame
    from test_pipecat_remote import words_in_first
    from test_pipecat_service import TIMEOUT_S, Call, running, tokens
    from test_turn_taking_pipeline import until

    from tts_service.pipecat.service import WarmlineTTSService

    first, second = "i can help you with that, let me check the schedule for tomorrow.", SENTENCES[3] + "."
    audio: list[bytes] = []

    async def main() -> list[str]:
        call = Call(WarmlineTTSService(url=f"ws://{ray_server.address}/", max_lead_s=None), sample_rate=16000)
        async with running(call):
            await call.answer(*tokens(first, 4))
            await until(lambda: bool(call.assistant_text()), "the first answer's end")
            audio.extend(f.audio for f in call.playback.received if isinstance(f, TTSAudioRawFrame))
            assert call.assistant_text() == [first]
            played = len(call.playback.received)
            call.playback.hold = True
            await call.answer(*tokens(second, 3))
            await asyncio.wait_for(call.playback.play(6), TIMEOUT_S)
            began = words_in_first(call.playback.received[played:], 6)
            await call.interrupt()
            call.playback.hold = False
            await call.answer(*tokens("Okay."))
            await until(lambda: len(call.assistant_text()) == 3, "the answer after the barge-in")
            assert began
            assert call.assistant_text() == [first, " ".join(began), "Okay."]
            return began

    asyncio.run(main())
    samples = np.frombuffer(b"".join(audio), dtype="<i2")
    assert recognizer(samples, 16000, [first, *SENTENCES, *DISTRACTORS]) == heard(first)


def test_sigterm_drains_every_replica_exits_0_and_leaves_no_ray_process(
    ray_server: RayServer, recognizer: Recognize
) -> None:
    """Last: it ends the module's server. Mid-turn: the sentence, its done, 1001; a newcomer
    during the drain: 1013; then exit 0 with nothing of Ray left in the server's session."""
    deadline = time.monotonic() + 60  # the killed replica's replacement is up, and reports
    while len([r for r in ray_server.healthz()["replicas"] if r["status"] == "ok"]) < 2:
        assert time.monotonic() < deadline, ray_server.healthz()
        time.sleep(0.5)
    sentence = SENTENCES[0]

    async def main() -> tuple[Turn, int | None, int | None]:
        async with connect(ray_server.url()) as ws:
            await ready(ws)
            await send(ws, cmd="start", text=sentence)
            first = await ws.recv()
            ray_server.proc.send_signal(signal.SIGTERM)
            await asyncio.sleep(1.5)  # every replica has heard of the drain (it reports twice a second)
            async with connect(ray_server.url()) as late:
                with pytest.raises(ConnectionClosed) as refused:
                    await asyncio.wait_for(late.recv(), WAIT_S)
            turn = await receive_until(ws, "done")
            turn.frames.insert(0, wp.decode_audio_frame(first))  # type: ignore[arg-type]
            with pytest.raises(ConnectionClosed) as closed:
                await asyncio.wait_for(ws.recv(), WAIT_S)
            rcvd = closed.value.rcvd
            late_rcvd = refused.value.rcvd
            return turn, rcvd.code if rcvd else None, late_rcvd.code if late_rcvd else None

    turn, code, late_code = asyncio.run(main())
    assert code == 1001 and late_code == 1013
    assert recognizer(turn.pcm(), 24000, [*SENTENCES, *DISTRACTORS]) == heard(sentence)
    assert ray_server.proc.wait(90) == 0, ray_server.output()[-3000:]
    deadline = time.monotonic() + 30
    while left := session_processes(ray_server.proc.pid):
        assert time.monotonic() < deadline, left
        time.sleep(0.5)
    # Ray's proxy logs a traceback of its own when a client closes a WebSocket at some moments
    # ("async generator ignored GeneratorExit"): its lines are Ray's, not the server's
    output = "\n".join(line for line in ray_server.output().splitlines() if "(ProxyActor" not in line)
    assert "warmline: drained" in output and "Traceback" not in output, output[-3000:]


#: what an operator's deploy does to the application: Serve itself stops its replicas
DELETE_THE_APP = (
    "import ray; from ray import serve; "
    "ray.init(address='auto', namespace='warmline', log_to_driver=False, logging_level='ERROR'); "
    "serve.delete('warmline'); ray.shutdown()"
)


def test_replicas_that_serve_itself_stops_finish_the_turn_in_progress_first(
    tmp_path: Path, recognizer: Recognize
) -> None:
    """Contract of ``ray_compat``: a replica Serve stops (here every one, as a deploy that removes
    the application does; a scale-down stops one the same way) lets its turn finish: the whole
    sentence, ``done``, then 1001. Its own server, since the module's has exited by now."""
    sentence = SENTENCES[2]
    with started_server(tmp_path / "serve.log") as server:

        async def main() -> tuple[Turn, int | None]:
            async with connect(server.url()) as ws:
                await ready(ws)
                await send(ws, cmd="start", text=sentence)
                first = await ws.recv()
                stop = asyncio.create_task(
                    asyncio.to_thread(
                        subprocess.run,
                        [sys.executable, "-c", DELETE_THE_APP],
                        env={**os.environ, **LOCAL_ONLY_ENV},  # a driver of the loopback-only Ray
                        timeout=120,
                    ),
                    name="test-serve-delete",
                )
                turn = await receive_until(ws, "done")
                turn.frames.insert(0, wp.decode_audio_frame(first))  # type: ignore[arg-type]
                with pytest.raises(ConnectionClosed) as closed:
                    await asyncio.wait_for(ws.recv(), WAIT_S)
                assert (await stop).returncode == 0
                rcvd = closed.value.rcvd
                return turn, rcvd.code if rcvd else None

        turn, code = asyncio.run(main())
        assert code == 1001
        assert recognizer(turn.pcm(), 24000, [*SENTENCES, *DISTRACTORS]) == heard(sentence)
        assert "Ray stops this replica" in server.output(), server.output()[-3000:]
        server.proc.send_signal(signal.SIGTERM)  # the server itself then finds nothing to drain
        assert server.proc.wait(90) == 0, server.output()[-3000:]
