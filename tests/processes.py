"""The command line run as a user runs it: in its own process, which signals can reach."""

from __future__ import annotations

import fcntl
import os
import pty
import re
import signal
import struct
import subprocess
import sys
import termios
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


def run_autoplay(*args: str, display: str | None = None, group: bool = False
                 ) -> subprocess.Popen[str]:
    """Start the CLI as a terminal would (``group``: in a process group of its own, which
    ``os.killpg`` signals as a terminal's Ctrl-C does)."""
    return run_python("-m", "autoplay", *args, display=display, group=group)


def run_python(*args: str, display: str | None = None, group: bool = False
               ) -> subprocess.Popen[str]:
    """Start Python with ``args``, as :func:`run_autoplay` does, Ctrl-C reaching it (see
    :func:`interruptible`)."""
    env = dict(os.environ) if display is None else os.environ | {"DISPLAY": display}
    with interruptible():
        return subprocess.Popen([sys.executable, *args], text=True, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, env=env,
                                process_group=0 if group else None)


@contextmanager
def interruptible() -> Iterator[None]:
    """Within, the processes started get SIGINT as a terminal's would. A background job (as
    CI may start this suite) hands its children SIGINT ignored; a handler here while they
    start gives it back, since a handler, unlike "ignored", does not outlive ``exec``."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def run_in_terminal(*args: str, columns: int) -> str:
    """What ``autoplay ARGS`` shows in a terminal ``columns`` wide (a pseudo-terminal),
    without its colours and styles."""
    leader, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 50, columns, 0, 0))
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    process = subprocess.Popen([sys.executable, "-m", "autoplay", *args], stdin=follower,
                               stdout=follower, stderr=follower, env=env | {"TERM": "xterm"})
    os.close(follower)
    shown = bytearray()
    while chunk := _read(leader):
        shown += chunk
    os.close(leader)
    process.wait(timeout=60)
    return re.sub(r"\x1b\[[0-9;]*m", "", shown.decode()).replace("\r\n", "\n")


def _read(leader: int) -> bytes:
    """The next bytes a pseudo-terminal shows; none once its process has closed it."""
    try:
        return os.read(leader, 65536)
    except OSError:  # EIO: every process holding the terminal has ended
        return b""


def wait_until_busy(process: subprocess.Popen[str], seconds: float) -> None:
    """Wait until ``process`` has had ``seconds`` of processor time (or has ended): on a
    loaded machine, time on the clock says little about how far it has got."""
    ticks = os.sysconf("SC_CLK_TCK")
    while process.poll() is None:
        fields = _stat(process.pid)
        if (int(fields[11]) + int(fields[12])) / ticks >= seconds:  # user and system time
            return
        time.sleep(0.02)


def is_running(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie, dead but not yet reaped by its parent, does not)."""
    try:
        return _stat(pid)[0] != "Z"
    except FileNotFoundError:
        return False


def _stat(pid: int) -> list[str]:
    """The fields of ``/proc/PID/stat`` after the command's name, the state first (the name,
    in parentheses, may hold spaces)."""
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
