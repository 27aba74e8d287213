"""Real desktop games on a virtual X display: start Xvfb, launch a game, find its window.

This is the side-effect edge that fixture capture (``fixtures/capture.py``) and the bot
playing real windows build on. Every call can name its display, so nothing here changes
``DISPLAY`` in this process (a :class:`Capture` of no display named reads it), and several
displays can be used at once. Grabs go through ``mss``; the harness's pointer and keys
(fixture capture, tests, closing dialogs) through ``xdotool`` (with no delay: its default
adds 100 ms per click). The recipes behind each game's settings are in the shared notes,
``desktop-games.md``.
"""

from __future__ import annotations

import contextlib
import os
import re
import select
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Self

import mss
import numpy as np
import numpy.typing as npt

from autoplay.errors import DesktopError, DisplayLost


@dataclass(frozen=True, slots=True)
class Region:
    """A rectangle of the screen, in pixels."""

    left: int
    top: int
    width: int
    height: int

    def clipped(self, bounds: Region) -> Region:
        """The part of this rectangle inside ``bounds`` (empty: no width or height).

        >>> Region(-5, 10, 20, 20).clipped(Region(0, 0, 100, 25))
        Region(left=0, top=10, width=15, height=15)
        """
        left, top = max(self.left, bounds.left), max(self.top, bounds.top)
        right = min(self.left + self.width, bounds.left + bounds.width)
        bottom = min(self.top + self.height, bounds.top + bounds.height)
        return Region(left, top, max(0, right - left), max(0, bottom - top))


@dataclass(frozen=True, slots=True)
class GameSpec:
    """How to start one desktop Minesweeper game and recognise its window."""

    executable: str
    """The program, looked up on ``PATH`` and then in ``/usr/games``."""
    search: tuple[str, ...]
    """``xdotool search`` options that match the game's main window and nothing else."""
    keeps_focus: bool = False
    """The game pauses itself when it loses keyboard focus, so focus is set at launch."""


GAMES: dict[str, GameSpec] = {
    "sgt-mines": GameSpec("sgt-mines", ("--class", "^Sgt-mines$")),
    "gnome-mines": GameSpec("gnome-mines", ("--class", "^gnome-mines$"), keeps_focus=True),
    # The window name is Latin-1 "xdémineur": match its ASCII tail.
    "xdemineur": GameSpec("xdemineur", ("--name", "mineur$")),
    # xbomb also creates an (unmapped) high-score window whose name starts the same way.
    "xbomb": GameSpec("xbomb", ("--name", "^XBomb V2.2b$")),
    "ace-minesweeper": GameSpec("ace-minesweeper",
                                ("--name", "^The Ace of Penguins - ace-minesweeper$")),
}
"""The games installed by ``.ci/setup``, by the name used for their skin."""

Image = npt.NDArray[np.uint8]


@dataclass(frozen=True, slots=True)
class Level:
    """A game's own level nearest a classic preset: how to start it, and its board."""

    args: tuple[str, ...]
    width: int
    height: int
    mines: int
    keys: tuple[str, ...] = ()
    """Keys that choose the level once the window is up (:meth:`GameWindow.choose`)."""
    window_size: tuple[int, int] | None = None
    """The window's width and height, set once it is up (:meth:`GameWindow.resize`)."""


LEVELS: dict[str, dict[str, Level]] = {
    # Any size: the classic ones, from parameters (so that 'n' keeps the mine count), in
    # Tatham's default "unique" generation: every game can be solved without a guess.
    "sgt-mines": {"beginner": Level(("9x9n10",), 9, 9, 10),
                  "intermediate": Level(("16x16n40",), 16, 16, 40),
                  "expert": Level(("30x16n99",), 30, 16, 99)},
    # Its own sizes; its beginner is 8x8. Its 30x16 (--big) opens in a window that shows 20
    # of its 30 columns: made 1000x460, the window has the 23 px tiles of its 16x16 in the
    # 610x460 window --medium opens (tiles follow the window's height), evenly spaced.
    "gnome-mines": {"beginner": Level(("--small",), 8, 8, 10),
                    "intermediate": Level(("--medium",), 16, 16, 40),
                    "expert": Level(("--big",), 30, 16, 99, window_size=(1000, 460))},
    # At least 12 columns: beginner is 12x9 with the 10 mines of 9x9.
    "xdemineur": {"beginner": Level(("-geometry", "12x9", "-m", "10"), 12, 9, 10),
                  "intermediate": Level(("-geometry", "16x16", "-m", "40"), 16, 16, 40),
                  "expert": Level(("-geometry", "30x16", "-m", "99"), 30, 16, 99)},
    # Its three fixed levels; its beginner is 8x8.
    "xbomb": {"beginner": Level(("-square", "-1"), 8, 8, 10),
              "intermediate": Level(("-square", "-2"), 16, 16, 40),
              "expert": Level(("-square", "-3"), 30, 16, 99)},
    # Four fixed levels, chosen by key; it starts on its biggest. Its first click may hold
    # a mine.
    "ace-minesweeper": {"beginner": Level((), 8, 8, 6, keys=("1",)),
                        "intermediate": Level((), 16, 16, 45, keys=("3",)),
                        "expert": Level((), 32, 32, 200)},
}
"""The games ``autoplay demo`` plays, and the level of each for each preset."""


_ENDS_WITH_US = ["setpriv", "--pdeathsig", "TERM"] if shutil.which("setpriv") else []
"""Run a server so that Linux stops it when autoplay dies however it dies (``kill -9``):
its games, which lose their display, go with it. (util-linux's ``setpriv``, everywhere
on Debian and Ubuntu.)"""


class VirtualDisplay:
    """An Xvfb server on a display number it picks itself, for the life of a ``with`` block.

    The server reports its display number through ``-displayfd`` once it accepts clients, so
    there is no polling and no clash with other servers. It runs with ``-noreset``: else it
    resets whenever its last client leaves, and a game started at that moment cannot
    connect. Leaving the block kills the server, and with it every client still connected.
    """

    def __init__(self, width: int = 1280, height: int = 1024, *, timeout: float = 10.0) -> None:
        self.width, self.height, self.timeout = width, height, timeout
        self.name = ""
        """The display name, such as ``":3"``, once started."""
        self._process: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> Self:
        read_end, write_end = os.pipe()
        try:
            self._process = subprocess.Popen(
                [*_ENDS_WITH_US, "Xvfb", "-displayfd", str(write_end), "-screen", "0",
                 f"{self.width}x{self.height}x24", "-nolisten", "tcp", "-noreset"],
                pass_fds=(write_end,), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        except FileNotFoundError:
            raise DesktopError("Xvfb is not installed (run .ci/setup)") from None
        finally:
            os.close(write_end)
        with os.fdopen(read_end, "rb") as pipe:
            ready, _, _ = select.select([pipe], [], [], self.timeout)
            number = pipe.readline().strip() if ready else b""
        if not number.isdigit():
            self.close()
            raise DesktopError(f"Xvfb did not report a display within {self.timeout} s")
        self.name = f":{number.decode()}"
        return self

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None,
                 traceback: TracebackType | None) -> None:
        self.close()

    def close(self) -> None:
        """Stop the server."""
        if self._process is not None:
            self._process.terminate()
            self._process.wait()
            self._process = None

    def grab(self, region: Region | None = None) -> Image:
        """The screen (or a region of it) as a BGR array."""
        return grab(self.name, region or Region(0, 0, self.width, self.height))


def grab(display: str, region: Region) -> Image:
    """A region of a display's screen as a BGR array, through a connection of its own."""
    with Capture(display) as capture:
        return capture.grab(region)


class Capture:
    """An open ``mss`` connection to one display, and the waits built on its grabs.

    Keeping the connection open makes a grab cost tens of microseconds instead of about a
    millisecond, which matters when every click of a game is followed by polling.
    ``display`` None means the one ``DISPLAY`` names.
    """

    def __init__(self, display: str | None = None) -> None:
        """:raises DesktopError: when the display cannot be reached."""
        self.display = display or os.environ.get("DISPLAY")
        try:
            self._screen = mss.MSS(display=display)
        except mss.exception.ScreenShotError as error:
            raise DesktopError(f"cannot reach display {self.display}: {error}") from None

    def __enter__(self) -> Self:
        return self

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None,
                 traceback: TracebackType | None) -> None:
        self.close()

    def close(self) -> None:
        """Close the connection (one the server has dropped too)."""
        with contextlib.suppress(mss.exception.ScreenShotError):
            self._screen.close()

    def monitors(self) -> list[Region]:
        """Every monitor, as mss numbers them: 0 is all of them together, then each one."""
        return [Region(m["left"], m["top"], m["width"], m["height"])
                for m in self._screen.monitors]

    def grab(self, region: Region) -> Image:
        """A region of the screen as a BGR array (mss gives BGRA).

        :raises DisplayLost: when the display's server has gone.
        """
        try:
            shot = self._screen.grab({"left": region.left, "top": region.top,
                                      "width": region.width, "height": region.height})
        except AssertionError:  # mss 10 asserts that a reply came: none comes once the
            # server is gone (its other errors, such as a region past the screen, are bugs)
            raise DisplayLost(self.display) from None
        return np.ascontiguousarray(np.asarray(shot)[:, :, :3])

    def still(self, region: Region, *, interval: float = 0.05, timeout: float = 3.0) -> Image:
        """The region once two grabs ``interval`` apart agree: after a click has been drawn.

        :raises DesktopError: if it keeps changing for ``timeout`` seconds.
        """
        deadline = time.monotonic() + timeout
        previous = self.grab(region)
        while time.monotonic() < deadline:
            time.sleep(interval)
            frame = self.grab(region)
            if np.array_equal(frame, previous):
                return frame
            previous = frame
        raise DesktopError(f"the screen at {region} kept changing for {timeout} s")

    def changed(self, region: Region, previous: Image, *, timeout: float = 1.0,
                interval: float = 0.05) -> tuple[Image, bool]:
        """The region once it differs from ``previous`` and is still again, and whether it
        changed at all.

        A grab right after a click can come before the game has handled it, and two equal
        grabs then only show the old picture; so this first waits for a change. A click
        that changes nothing (on a finished game, say) costs ``timeout`` seconds.
        """
        deadline = time.monotonic() + timeout
        changed = False
        while not changed and time.monotonic() < deadline:
            changed = not np.array_equal(self.grab(region), previous)
            if not changed:
                time.sleep(0.005)
        return self.still(region, interval=interval), changed


def xdotool(display: str, *args: str) -> str:
    """Run ``xdotool`` on ``display`` and return its output (Latin-1: window names may be)."""
    try:
        result = subprocess.run(["xdotool", *args], env=os.environ | {"DISPLAY": display},
                                capture_output=True, check=False)
    except FileNotFoundError:
        raise DesktopError("xdotool is not installed (.ci/setup installs it)") from None
    if result.returncode != 0 and args[0] != "search":
        raise DesktopError(f"xdotool {' '.join(args)} failed: "
                           f"{result.stderr.decode('latin-1').strip()}")
    return result.stdout.decode("latin-1")


class GameWindow:
    """A running game and its main window: grab it, click it, press keys, close it.

    Coordinates passed to :meth:`click` are relative to the window's top-left corner.
    """

    def __init__(self, name: str, display: str, process: subprocess.Popen[bytes],
                 window: str, home: tempfile.TemporaryDirectory[str]) -> None:
        self.name, self.display, self.process, self.window = name, display, process, window
        self._home = home
        self._capture = Capture(display)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None,
                 traceback: TracebackType | None) -> None:
        self.close()

    def region(self) -> Region:
        """Where the window is on the screen (with no window manager, at +0+0)."""
        fields = dict(re.findall(r"(\w+)=(\d+)", xdotool(
            self.display, "getwindowgeometry", "--shell", self.window)))
        return Region(int(fields["X"]), int(fields["Y"]), int(fields["WIDTH"]),
                      int(fields["HEIGHT"]))

    def grab(self) -> Image:
        """The window as it looks now, as a BGR array."""
        return self._capture.grab(self.region())

    def grab_still(self, *, interval: float = 0.05, timeout: float = 3.0) -> Image:
        """The window once two grabs ``interval`` apart agree (see :meth:`Capture.still`).

        :raises DesktopError: if it keeps changing for ``timeout`` seconds.
        """
        try:
            return self._capture.still(self.region(), interval=interval, timeout=timeout)
        except DisplayLost:
            raise
        except DesktopError:
            raise DesktopError(f"{self.name} kept changing for {timeout} s") from None

    def grab_changed(self, previous: Image, *, timeout: float = 1.0) -> Image:
        """The window once it differs from ``previous`` and is still again (see
        :meth:`Capture.changed`)."""
        return self._capture.changed(self.region(), previous, timeout=timeout)[0]

    def click(self, x: int, y: int, button: int = 1) -> None:
        """Click at window coordinates (x, y); button 1 left, 2 middle, 3 right: to set up a
        position for a test or a fixture. (The bot clicks through
        :class:`~autoplay.screen.ScreenGame`, which keeps every click on the board.)"""
        region = self.region()
        xdotool(self.display, "mousemove", "--sync", str(region.left + x), str(region.top + y),
                "click", "--delay", "0", str(button))

    def place(self, left: int, top: int, *, timeout: float = 5.0) -> None:
        """Move the window so that its top-left corner is at (left, top) on the screen.

        :raises DesktopError: if it is not there within ``timeout`` seconds.
        """
        xdotool(self.display, "windowmove", self.window, str(left), str(top))
        self._await(lambda region: (region.left, region.top) == (left, top),
                    f"did not move to ({left}, {top})", timeout)

    def move(self, x: int, y: int) -> None:
        """Move the pointer to window coordinates (x, y), e.g. off the board before a grab."""
        region = self.region()
        xdotool(self.display, "mousemove", "--sync", str(region.left + x), str(region.top + y))

    def key(self, *keys: str) -> None:
        """Press keys (xdotool names, such as ``F2`` or ``ctrl+n``) in the window."""
        xdotool(self.display, "key", "--window", self.window, "--delay", "0", *keys)

    def choose(self, *keys: str) -> None:
        """Press keys that redraw the window (a level chosen by key), with the pointer over
        it, which is where a game with no window manager takes keys from, and wait until
        it has redrawn."""
        region = self.region()
        self.move(region.width // 2, region.height // 2)
        drawn = self.grab_still()
        self.key(*keys)
        self.grab_changed(drawn)

    def resize(self, width: int, height: int, *, timeout: float = 5.0) -> None:
        """Make the window ``width`` x ``height`` and wait until the game has drawn it
        (gnome-mines scales its tiles with its window).

        :raises DesktopError: if it is not that size within ``timeout`` seconds.
        """
        xdotool(self.display, "windowsize", self.window, str(width), str(height))
        self._await(lambda region: (region.width, region.height) == (width, height),
                    f"did not take the size {width}x{height}", timeout)
        self.grab_still()

    def _await(self, done: Callable[[Region], bool], failure: str, timeout: float) -> None:
        """Poll the window's place and size until ``done`` says so.

        :raises DesktopError: saying the game's ``failure`` after ``timeout`` seconds.
        """
        deadline = time.monotonic() + timeout
        while not done(self.region()):
            if time.monotonic() > deadline:
                raise DesktopError(f"{self.name} {failure}")
            time.sleep(0.02)

    def close(self) -> None:
        """End the game's process and remove its private settings directory."""
        self._capture.close()
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self._home.cleanup()


def find_window(display: str, search: Sequence[str], *, timeout: float = 10.0) -> str:
    """The id of the one visible window that ``xdotool search`` options match.

    Polls rather than using ``--sync``, which can wait forever.

    :raises DesktopError: if none appears within ``timeout`` seconds.
    """
    deadline = time.monotonic() + timeout
    while True:
        found = xdotool(display, "search", "--onlyvisible", *search).split()
        if found:
            return found[-1]
        if time.monotonic() > deadline:
            raise DesktopError(f"no window matching {' '.join(search)} on {display} "
                               f"after {timeout} s")
        time.sleep(0.02)


def launch_game(name: str, display: str, args: Sequence[str] = (), *,
                settings: Mapping[str, str | int | bool] | None = None,
                timeout: float = 10.0) -> GameWindow:
    """Start game ``name`` (a key of :data:`GAMES`) on ``display`` and wait for its window.

    ``args`` go to the program: a game ID for sgt-mines (``'9x9:4,4,u81...'``),
    ``-geometry 12x9 -m 15`` for xdemineur, ``-1`` for xbomb, ``--small`` for gnome-mines.
    ``settings`` are GSettings keys of ``org.gnome.Mines`` for gnome-mines (such as
    ``{"xsize": 9, "ysize": 9, "nmines": 10}``). Each game gets a private home and
    configuration directory, so it never writes settings or scores into the user's.

    :raises DesktopError: if the program is missing or its window does not appear.
    """
    return launch(GAMES[name], display, args, settings=settings, timeout=timeout)


def launch(spec: GameSpec, display: str, args: Sequence[str] = (), *,
           settings: Mapping[str, str | int | bool] | None = None,
           timeout: float = 10.0) -> GameWindow:
    """Start any program with a window, described by ``spec``, as :func:`launch_game` does."""
    executable = shutil.which(spec.executable,
                              path=os.pathsep.join([os.environ.get("PATH", ""), "/usr/games"]))
    if executable is None:
        raise DesktopError(f"{spec.executable} is not installed (run .ci/setup)")
    _remove_orphaned_homes()
    home = tempfile.TemporaryDirectory(prefix=f"{_HOME_PREFIX}{spec.executable}-{os.getpid()}-")
    env = _private_environment(Path(home.name), display, settings or {})
    log = Path(home.name) / "output.log"
    with log.open("wb") as output:
        process = subprocess.Popen([executable, *args], env=env, stdin=subprocess.DEVNULL,
                                   stdout=output, stderr=subprocess.STDOUT)
    try:
        window = find_window(display, spec.search, timeout=timeout)
        if spec.keeps_focus:
            xdotool(display, "windowfocus", "--sync", window)
    except DesktopError as error:
        process.kill()
        process.wait()
        said = log.read_text("latin-1").strip().splitlines()[-3:]
        home.cleanup()
        raise DesktopError(f"{error}; {spec.executable} exited with {process.returncode}"
                           + (f", saying: {' / '.join(said)}" if said else "")) from None
    except BaseException:
        process.kill()
        process.wait()
        home.cleanup()
        raise
    return GameWindow(spec.executable, display, process, window, home)


_HOME_PREFIX = "autoplay-"
"""A game's private home is ``autoplay-<executable>-<pid>-<random>`` in the temporary
folder, ``pid`` the process that launched it."""


def _remove_orphaned_homes() -> None:
    """Delete the private homes of games whose launching process is gone: a run killed
    outright (``kill -9``) cannot delete its own."""
    for home in Path(tempfile.gettempdir()).glob(f"{_HOME_PREFIX}*-*-*"):
        pid = home.name.rsplit("-", 2)[1]
        try:
            if not pid.isdigit() or home.stat().st_uid != os.getuid() or _is_alive(int(pid)):
                continue
        except OSError:  # gone meanwhile
            continue
        shutil.rmtree(home, ignore_errors=True)


def _is_alive(pid: int) -> bool:
    """Whether process ``pid`` exists (another user's, or a zombie not yet reaped, too)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's
        pass
    return True


def _private_environment(home: Path, display: str,
                         settings: Mapping[str, str | int | bool]) -> dict[str, str]:
    """An environment whose home, configuration and data live under ``home``.

    gnome-mines reads GSettings; with no D-Bus here, a keyfile backend under the private
    configuration directory holds them (animations off, so a grab shows the final board).
    """
    keyfile = home / "config" / "glib-2.0" / "settings" / "keyfile"
    keyfile.parent.mkdir(parents=True)
    values = {"use-animations": False} | dict(settings)
    lines = [f"{key}={str(value).lower() if isinstance(value, bool) else value}"
             for key, value in values.items()]
    keyfile.write_text("[org/gnome/Mines]\n" + "\n".join(lines) + "\n", encoding="utf-8")
    return os.environ | {
        "DISPLAY": display, "HOME": str(home), "XDG_CONFIG_HOME": str(home / "config"),
        "XDG_DATA_HOME": str(home / "data"), "GSETTINGS_BACKEND": "keyfile",
        "NO_AT_BRIDGE": "1",
    }
