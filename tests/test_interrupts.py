"""Ctrl-C wherever it lands: ``Interrupted``, exit 130, and never an answer cut short;
SIGTERM likewise, as ``Terminated`` and exit 143.

Z3 stops a check it is asked to stop with "unknown", which must not read as "no layout
fits"; and a KeyboardInterrupt raised inside z3's Python code is lost or turned into
another error. These run the command line in its own process, as a user would.
"""

from __future__ import annotations

import os
import pty
import random
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from autoplay.errors import STOPS, plural
from autoplay.stats import StatsError, StatsStore
from tests.processes import interruptible, is_running, run_autoplay, run_python, wait_until_busy


def large_board(size: int, seed: int) -> str:
    """A consistent board of ``size`` x ``size`` cells, about 40% of them opened: some
    seconds of proof."""
    rng = random.Random(seed)
    mines = {(r, c) for r in range(size) for c in range(size) if rng.random() < 0.15}

    def cell(r: int, c: int) -> str:
        if (r, c) in mines or rng.random() > 0.4:
            return "."
        return str(sum((r + a, c + b) in mines for a in (-1, 0, 1) for b in (-1, 0, 1)))

    rows = ("".join(cell(r, c) for c in range(size)) for r in range(size))
    return f"mines: {len(mines)}\n" + "\n".join(rows) + "\n"


@pytest.mark.parametrize("asked", [[], ["--count", "5"], ["--layout"]])
def test_ctrl_c_in_a_long_proof_answers_nothing(asked: list[str], tmp_path: Path) -> None:
    board = tmp_path / "board.txt"
    board.write_text(large_board(300, 1))
    process = run_autoplay("solve", *asked, str(board))
    wait_until_busy(process, 3.0)  # parsed, and well into the proof (10 s or more in all)
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=60)
    assert (process.returncode, out, err) == (130, "", "Interrupted\n")


@pytest.mark.parametrize("module", ["click", "numpy", "z3", "cv2", "autoplay.sim"])
def test_ctrl_c_while_the_command_loads_stops_it_as_later(module: str) -> None:
    """Its libraries take a few tenths of a second to import. The signal is raised here as
    ``module`` starts to load, through the command's own entry point."""
    code = ("import signal, sys\n"
            "def hook(event, args):\n"
            f"    if event == 'import' and args[0] == {module!r}:\n"
            "        signal.raise_signal(signal.SIGINT)\n"
            "sys.addaudithook(hook)\n"
            "sys.argv = ['autoplay', 'solve', '-']\n"
            "from autoplay.__main__ import main\n"
            "main()\n")
    with interruptible():
        result = subprocess.run([sys.executable, "-c", code], input="1?\n",
                                capture_output=True, text=True, timeout=60, check=False)
    assert (result.returncode, result.stdout, result.stderr) == (130, "", "Interrupted\n")


@pytest.mark.parametrize("busy", [1.5, 2.2, 2.9])
def test_ctrl_c_in_kaboom_games_keeps_the_finished_ones(busy: float, tmp_path: Path) -> None:
    """Kaboom asks Z3 for a layout at every reveal, so the signal lands in Z3 or in z3's
    Python code most of the time."""
    path = tmp_path / "s.sqlite3"
    process = run_autoplay("sim", "--preset", "expert", "--rules", "kaboom", "--games", "20",
                           "--workers", "1", "--seed", "1", "--quiet", "--db", str(path))
    wait_until_busy(process, busy)
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=60)
    assert (process.returncode, out, err) == (130, "", _kept(path, 1) + "Interrupted\n")
    assert _games(path) < 20


TOOLS = Path(__file__).resolve().parent.parent / "tools"


@pytest.mark.parametrize(("tool", "signum", "group", "code", "said"), [
    (False, signal.SIGTERM, False, 143, "Terminated\n"),  # kill PID, timeout
    (False, signal.SIGTERM, True, 143, "Terminated\n"),   # kill -- -PGID: the workers too
    (False, signal.SIGINT, True, 130, "Interrupted\n"),   # a terminal's Ctrl-C: likewise
    # the terminal closed (its whole group would also stop the pool's resource tracker,
    # which Python restarts, with a traceback on a terminal no longer there)
    (False, signal.SIGHUP, False, 129, "Hangup\n"),
    # kill -9 PID: nothing can be said (the pool's resource tracker warns of its locks),
    # but the workers must not linger, nor print tracebacks
    (False, signal.SIGKILL, False, -signal.SIGKILL, None),
    (True, signal.SIGTERM, False, -signal.SIGTERM, None),  # a tool, with no handler
])
def test_a_stopped_run_of_workers_ends_cleanly(tool: bool, signum: signal.Signals, group: bool,
                                               code: int, said: str | None, tmp_path: Path
                                               ) -> None:
    """One line, the finished games kept, and no worker left behind. Killed by SIGTERM,
    the parent left its workers to print tracebacks; the workers killed with it left the
    pool's lock held, which would hang a parent stopping its pool."""
    path = tmp_path / "s.sqlite3"
    games = ("--preset", "beginner", "--games", "100000", "--workers", "2", "--seed", "3")
    process = (run_python(str(TOOLS / "tune.py"), str(path), *games, group=group) if tool
               else run_autoplay("sim", *games, "--quiet", "--db", str(path), group=group))
    with _under_way(process, path):
        workers = _children(process.pid)
        assert len(workers) == 2
        # Both started: out of the parent's group (workers still starting: the next test).
        deadline = time.monotonic() + 120
        while any(os.getpgid(pid) != pid for pid in workers) and time.monotonic() < deadline:
            time.sleep(0.1)
        if group:
            os.killpg(process.pid, signum)
        else:
            process.send_signal(signum)
        out, err = process.communicate(timeout=60)  # till the workers close standard error
        assert process.returncode == code and "Traceback" not in err
        assert said is None or (out, err) == ("", _kept(path, 3) + said)
        assert 0 < _games(path) < 100000
        assert not _left_running(workers)


@pytest.mark.parametrize(("first", "second"), [
    (signal.SIGINT, signal.SIGHUP),  # Ctrl-C, then the terminal closed
    (signal.SIGTERM, signal.SIGINT)])
def test_a_second_stop_waits_for_the_end_of_the_first(first: signal.Signals,
                                                      second: signal.Signals,
                                                      tmp_path: Path) -> None:
    """The second interrupted the pool's cleanup with a chained traceback, most times. (Sent
    together, the two are taken in the order of their numbers: either is the stop.)"""
    path = tmp_path / "s.sqlite3"
    process = run_autoplay("sim", "--preset", "beginner", "--games", "100000", "--workers",
                           "2", "--seed", "3", "--quiet", "--db", str(path))
    with _under_way(process, path):
        process.send_signal(first)
        process.send_signal(second)
        out, err = process.communicate(timeout=60)
        stop = signal.Signals(process.returncode - 128)
        assert stop in (first, second)
        assert (out, err) == ("", _kept(path, 3) + STOPS[stop] + "\n")


@pytest.mark.parametrize("signum", [signal.SIGHUP, signal.SIGINT])
def test_a_stop_ignored_when_the_run_began_stays_ignored(signum: signal.Signals,
                                                         tmp_path: Path) -> None:
    # nohup ignores SIGHUP, and a shell script's background job SIGINT: the run took them
    # as stops all the same.
    path = tmp_path / "s.sqlite3"
    process = subprocess.Popen(  # a shell's empty trap ignores the signal, as nohup does
        ["sh", "-c", f"trap '' {signum.name[3:]}; exec \"$0\" \"$@\"", sys.executable, "-m",
         "autoplay", "sim", "--preset", "beginner", "--games", "300", "--workers", "1",
         "--quiet", "--db", str(path)], text=True, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE)
    with _under_way(process, path):
        process.send_signal(signum)
        _, err = process.communicate(timeout=120)
        assert (process.returncode, err) == (0, "")
        assert _games(path) == 300


@pytest.mark.parametrize("signum", [signal.SIGKILL, signal.SIGTERM])
def test_a_worker_killed_stops_the_run_with_one_line(signum: signal.Signals,
                                                     tmp_path: Path) -> None:
    # The pool started another worker, and the run waited for ever for the dead one's game.
    path = tmp_path / "s.sqlite3"
    process = run_autoplay("sim", "--preset", "beginner", "--games", "100000", "--workers",
                           "2", "--seed", "3", "--quiet", "--db", str(path))
    with _under_way(process, path):
        workers = _children(process.pid)
        assert len(workers) == 2
        os.kill(workers[0], signum)
        out, err = process.communicate(timeout=60)
        assert (process.returncode, out, err) == (1, "", _kept(path, 3) + (
            f"Error: a worker process ended (exit code {-signum}: killed?) with its game "
            f"unfinished: stopped\n"))
        assert not _left_running(workers[1:])


def test_workers_killed_waiting_for_a_game_stop_the_run() -> None:
    """A worker waiting for its next game holds the lock of the pool's queue of games, which
    stopping the pool takes: killed then, it left the stop waiting for ever. In ``sim`` that
    moment is a few microseconds a game (CI once met it); here no game is left to hand out,
    so one of the two idle workers holds the lock for certain."""
    process = run_python("-c", "import time\n"
                               "from autoplay.sim import map_seeds\n"
                               "def seeds():\n"
                               "    yield 1\n"
                               "    time.sleep(5)\n"
                               "for result in map_seeds(abs, seeds(), workers=2):\n"
                               "    print(result, flush=True)\n")
    try:
        assert process.stdout is not None and process.stdout.readline() == "1\n"
        workers = _children(process.pid)
        assert len(workers) == 2
        time.sleep(0.5)  # the worker that played seed 1 is back waiting
        for pid in workers:
            os.kill(pid, signal.SIGKILL)
        _, err = process.communicate(timeout=60)
        assert process.returncode == 1
        assert err.splitlines()[-1] == (
            "autoplay.errors.WorkersFailed: a worker process ended (exit code -9: killed?) "
            "with its game unfinished: stopped")
    finally:
        process.kill()
        process.communicate()


def test_ctrl_c_while_the_workers_start_stops_them_quietly(tmp_path: Path) -> None:
    """A terminal's Ctrl-C reaches workers still starting (in the parent's group, importing
    autoplay): they must not print their tracebacks."""
    path = tmp_path / "s.sqlite3"
    process = run_autoplay("sim", "--preset", "beginner", "--games", "100000", "--workers",
                           "2", "--seed", "3", "--quiet", "--db", str(path), group=True)
    try:
        deadline = time.monotonic() + 60
        while len(_children(process.pid)) < 2 and time.monotonic() < deadline:
            time.sleep(0.01)
        workers = _children(process.pid)
        assert len(workers) == 2 and all(os.getpgid(pid) == process.pid for pid in workers)
        os.killpg(process.pid, signal.SIGINT)
        out, err = process.communicate(timeout=60)
        assert (process.returncode, out, err) == (130, "", _kept(path, 3) + "Interrupted\n")
        assert not _left_running(workers)
    finally:
        process.kill()
        process.communicate()


def test_a_stopped_run_on_a_terminal_says_what_it_kept_below_its_progress_bar(
        tmp_path: Path) -> None:
    # The bar was still drawn when the count was written: "0:00:58304 games finished".
    path = tmp_path / "s.sqlite3"
    main, terminal = pty.openpty()
    with interruptible():
        process = subprocess.Popen(
            [sys.executable, "-m", "autoplay", "sim", "--preset", "intermediate", "--games",
             "5000", "--workers", "1", "--seed", "3", "--db", str(path)],
            stdin=terminal, stdout=terminal, stderr=terminal, start_new_session=True)
    os.close(terminal)
    shown = b""
    try:
        while not re.search(rb" [1-9][0-9]*/5000", shown):  # the bar shows a game done
            shown += os.read(main, 4096)
        process.send_signal(signal.SIGINT)
        while chunk := _read_terminal(main):
            shown += chunk
        assert process.wait(timeout=60) == 130
    finally:
        process.kill()
        process.wait()
        os.close(main)
    lines = re.sub(rb"\x1b\[[0-9;?]*[A-Za-z]", b"", shown).decode().replace("\r\n", "\n")
    assert lines.endswith("\n" + _kept(path, 3) + "Interrupted\n")


def _read_terminal(main: int) -> bytes:
    """What the program wrote to its terminal next; nothing once it closed it."""
    try:
        return os.read(main, 4096)
    except OSError:  # EIO: every end of the terminal closed
        return b""


@pytest.mark.parametrize(("given", "reference"), [
    ("bench.expert_positions(1)[0]", "bench.reference_safe_cells"),
    ("Clues.parse('rows:\\n1\\n0\\ncolumns:\\n1\\n0\\n')", "bench.article_nonogram")])
def test_a_reference_of_the_benchmark_stopped_stops_as_ctrl_c_does(given: str,
                                                                   reference: str) -> None:
    # They call z3's own API, whose calls after a cancel raised "Z3Exception: push
    # canceled" from autoplay bench on 3 of 12 Ctrl-Cs, or answered.
    process = run_python("-c", "from autoplay import bench, pb\n"
                               "from autoplay.nonogram import Clues\n"
                               f"given = {given}\npb.cancel_checks()\n{reference}(given)\n")
    _, err = process.communicate(timeout=60)
    assert err.splitlines()[-1] == "KeyboardInterrupt"


@contextmanager
def _under_way(process: subprocess.Popen[str], path: Path) -> Iterator[None]:
    """Within, ``process``, a run recording in ``path``, has recorded a game (or ended);
    after, it is killed whatever happened: a failure must not leave a hundred thousand
    games running."""
    try:
        deadline = time.monotonic() + 120
        while not _games(path) and process.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        yield
    finally:
        process.kill()
        process.communicate()


def _left_running(pids: list[int]) -> list[int]:
    """Those of ``pids`` still running after up to 10 seconds for them to end."""
    deadline = time.monotonic() + 10
    while any(is_running(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.1)
    return [pid for pid in pids if is_running(pid)]


def _kept(path: Path, seed: int) -> str:
    """What a stopped ``sim`` of seed ``seed`` says of the games it kept, and of the rest,
    before the stop's own word."""
    return (f"{plural(_games(path), 'game')} finished, recorded in {path}; "
            f"--seed {seed} --resume plays the rest\n")


def _games(path: Path) -> int:
    """The games recorded in ``path`` so far (none while it is being made)."""
    try:
        return len(list(StatsStore(path).games())) if path.exists() else 0
    except StatsError:
        return 0


def _children(pid: int) -> list[int]:
    """The worker processes of ``pid`` (a pool's resource tracker is no multiprocessing
    child; it has no ``spawn_main`` in its command line)."""
    found = []
    for child in Path(f"/proc/{pid}/task/{pid}/children").read_text().split():
        if b"spawn_main" in Path(f"/proc/{child}/cmdline").read_bytes():
            found.append(int(child))
    return found
