"""Playing a real game on the screen: the bot's hand, the one module whose pointer is ``pyautogui``.

:class:`ScreenGame` is a :class:`~autoplay.player.Game` over a board located on a screen, so
:func:`autoplay.player.play` drives it exactly as it drives the simulator. It grabs only the
board's rectangle (through :class:`~autoplay.desktop.Capture`, an open ``mss`` connection),
reads it with :mod:`autoplay.vision`, and clicks with ``pyautogui``. Safety comes first:

* every click goes through one choke point, :meth:`ScreenGame._press`, which refuses a point
  outside the located board (or, to start the next game, outside the face the skin declares),
  and logs each click in :attr:`ScreenGame.clicks`;
* pyautogui's fail-safe stays on: with the pointer in a screen corner its next action raises
  ``FailSafeException``, raised on as :class:`~autoplay.errors.FailSafeStop`, which the
  command line prints as one line, exit code 1;
* every :meth:`~ScreenGame.observe` reads a fresh grab and checks it against the last board
  (opened cells keep their counts). A board that is gone, covered or changed is looked for
  again over the whole search area: found, play goes on where it now is; not found,
  :class:`~autoplay.errors.WindowLost` stops the game. Nothing is clicked blind;
* after a click it polls until the board has changed and holds still, with a timeout, rather
  than sleeping a fixed time. Timers and counters lie outside the board's rectangle.

What differs between games, how each shows that a game ended and how the next one starts,
is data: one :class:`Playbook` per skin in :data:`PLAYBOOKS`.
"""

from __future__ import annotations

import dataclasses
import logging
import os
import sys
import time
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from types import ModuleType
from typing import Literal

import cv2
import numpy as np

from autoplay import locate, vision
from autoplay.board import EXPLODED, FLAG, MINE, UNKNOWN, Board, Cell, three_bv
from autoplay.deduction import deduce
from autoplay.desktop import Capture, Region, xdotool
from autoplay.errors import (
    BoardCut,
    DesktopError,
    DisplayLost,
    FailSafeStop,
    InconsistentBoard,
    NoBoardFound,
    UnknownCells,
    WindowLost,
    plural,
)
from autoplay.player import FirstClick, GameResult, Outcome, first_click_cell
from autoplay.stats import GameRecord
from autoplay.vision import SHIPPED_SKINS, Geometry, Image, Reading, Skin

log = logging.getLogger(__name__)

Button = Literal["left", "right"]
SIGNS = SHIPPED_SKINS
"""Pictures of the games' own end signs live beside their skin's templates."""


# --- What each game does around its board -------------------------------------------------

@dataclass(frozen=True, slots=True)
class StatusText:
    """A line of text under the board that says how the game ended (sgt-mines' status bar).

    ``images`` maps an outcome to a picture of its words; each is looked for anywhere in the
    strip under the board, so the timer printed before the words does not matter. A picture
    holds only the first letters of long words (COMPLE of COMPLETED!): a window no wider
    than its menu bar cuts the rest ("[0:00] COMPLET...").
    """

    images: tuple[tuple[Outcome, str], ...]
    """(outcome, path under ``templates/``) pairs."""
    below: tuple[float, float] = (1.0, 5.0)
    """The strip, in cell pitches below the board's bottom edge."""

    def region(self, geometry: Geometry) -> Region:
        """Where to look, in the coordinates of ``geometry``."""
        x0, _, x1, y1 = geometry.box()
        top, bottom = (round(y1 + d * geometry.pitch_y) for d in self.below)
        side = round(2 * geometry.pitch_x)
        return Region(x0 - side, top, x1 - x0 + 2 * side, bottom - top)

    def read(self, strip: Image) -> Outcome | None:
        """The outcome whose words are in ``strip``, if any."""
        for outcome, name in self.images:
            words = _sign_image(name)
            if strip.shape[0] < words.shape[0] or strip.shape[1] < words.shape[1]:
                continue
            found = cv2.matchTemplate(strip, words, cv2.TM_SQDIFF)
            if float(found.min()) / words.size < _SIGN_DISTANCE ** 2:
                return outcome
        return None


@dataclass(frozen=True, slots=True)
class Face:
    """A button above the middle of the board whose picture changes when the game ends (a
    smiley), and that starts a new game when clicked. Measured in screen pixels: the face
    keeps its size when a game's level changes the cells'."""

    above: int
    """How far above the board's top edge its centre is."""
    size: int
    """Its side (a little less than the button's, to leave its bevel out)."""

    def region(self, geometry: Geometry) -> Region:
        """Where it is, in the coordinates of ``geometry``."""
        x0, y0, x1, _ = geometry.box()
        return Region(round((x0 + x1 - self.size) / 2), y0 - self.above - self.size // 2,
                      self.size, self.size)


@dataclass(frozen=True, slots=True)
class Dialog:
    """A window the game opens over the board when a game is won (GNOME Mines'
    "Congratulations!"), found by name and closed with a key."""

    name: str
    """An ``xdotool search --name`` pattern."""
    close: str = "Escape"


Sign = StatusText | Face | Dialog


@dataclass(frozen=True, slots=True)
class Playbook:
    """What one game does around its board: its first click, its end, its next game."""

    first_click: FirstClick | None
    """What the game promises about the first click; None: it may hold a mine."""
    sign: Sign | None
    """How the game itself shows that a game is over; None: only the board tells."""
    new_game: tuple[str, ...] = ()
    """Keys that start the next game (pyautogui names, chords as ``ctrl+r``); none: click
    the face."""
    shows_mines: bool = True
    """After a loss the game shows every mine, so the layout (and its 3BV) is known."""
    hover: bool = False
    """The game lights the tile under the pointer, so the pointer waits beside the board."""
    still: float = 0.01
    """How long the board must hold unchanged to count as drawn, in seconds: a game that
    draws cell by cell, slowly, needs longer."""
    flags_to_win: bool = False
    """The game calls a game won only once every mine is flagged, not when every safe cell
    is open: the bot then flags the cells left, which are all mines."""
    flags_mines_when_won: bool = False
    """The game flags every mine once a game is won: a board that looks won and keeps
    covered cells is not (a mine count too high), whatever the sign's pictures match."""
    marks_loss: bool = False
    """At a loss the game draws over the cells opened before (xbomb's green lines, through
    which a 5 can read as a 0, or as nothing): the mine gone off under the bot's click
    ends the game however they read (:func:`_lost_at`)."""
    levels: tuple[tuple[int, int, int], ...] = ()
    """The game's levels as (width, height, mines), for a game that has no others: a board
    of one of those sizes then holds that many mines, known without ``--mines``."""

    def mines_of(self, width: int, height: int) -> int | None:
        """The mine count of the game's level of that size, if it has one."""
        return next((mines for w, h, mines in self.levels if (w, h) == (width, height)), None)


PLAYBOOKS: dict[str, Playbook] = {
    # The layout is made at the first click, around it: an opening. 'n' keeps the size and
    # mine count when the game was started from parameters (9x9n10), not from a game ID.
    "sgt-mines": Playbook("opening", StatusText((("won", "sgt-mines/signs/won.png"),
                                                 ("lost", "sgt-mines/signs/lost.png"))),
                          new_game=("n",), shows_mines=False, flags_mines_when_won=True),
    # After a win or a loss Ctrl+R starts the same size again with no question asked.
    "gnome-mines": Playbook("opening", Dialog("^Congratulations"), new_game=("ctrl+r",),
                            hover=True),
    # It opens an area by itself at the start: there is no first click to make.
    "xdemineur": Playbook("opening", Face(above=41, size=22), flags_to_win=True),
    # Fixed levels only (three, and four): a board's size tells its mine count.
    "xbomb": Playbook("safe", None, new_game=("s",), still=0.05, marks_loss=True,
                      levels=((8, 8, 10), (16, 16, 40), (30, 16, 99))),
    "ace-minesweeper": Playbook(None, Face(above=17, size=24), flags_to_win=True, levels=(
        (8, 8, 6), (11, 11, 20), (16, 16, 45), (32, 32, 200))),
}
"""The shipped skins' games; a skin learned by the user gets :data:`UNKNOWN_GAME`."""
UNKNOWN_GAME = Playbook("safe", None, shows_mines=False)
"""A game autoplay knows only by its cells: it is ended by the board, never restarted, and
a loss is not taken to show every mine."""


def playbook_of(skin_name: str) -> Playbook:
    """The playbook of the game a skin reads (:data:`UNKNOWN_GAME` for a learned one)."""
    return PLAYBOOKS.get(skin_name, UNKNOWN_GAME)


_SIGN_DISTANCE = 12.0
"""A sign's picture is found where it differs from the screen by less than this
(root-mean-square, 0-255 per channel)."""
_sign_images: dict[str, Image] = {}


def _sign_image(name: str) -> Image:
    if name not in _sign_images:
        image = cv2.imread(str(SIGNS / name), cv2.IMREAD_COLOR)
        if image is None:
            raise DesktopError(f"cannot read the sign picture {SIGNS / name}")
        _sign_images[name] = np.asarray(image, np.uint8)
    return _sign_images[name]


def judge(board: Board) -> Outcome:
    """How a game stands, by its board alone: lost when a mine went off, won when every
    cell not opened is a mine (counted against the board's mine total when it has one,
    else proven by :func:`~autoplay.deduction.deduce` with the flags left out).

    >>> judge(Board.parse("mines: 1\\n1F\\n11")), judge(Board.parse("1.\\n11"))
    ('won', 'won')
    >>> judge(Board.parse("1.\\n..")), judge(Board.parse("1X\\n..").with_mines(1))
    ('playing', 'lost')
    """
    if EXPLODED in board.states:
        return "lost"
    closed = _closed(board)
    if board.mines is not None:
        return "won" if len(closed) == board.mines else "playing"
    if not closed:
        return "won"
    try:
        mines = deduce(board.without_flags(), quick=True).mines
    except InconsistentBoard:
        return "playing"
    return "won" if mines.issuperset(closed) else "playing"


def layout_shown(board: Board, outcome: Outcome, playbook: Playbook) -> frozenset[Cell] | None:
    """The mines, when the finished game shows them all: after a win, every cell not
    opened; after a loss, the mines and right flags of a game that uncovers them."""
    if outcome == "won":
        return _closed(board)
    if outcome == "lost" and playbook.shows_mines:
        return frozenset(c for c in board.cells() if board[c] in (FLAG, MINE, EXPLODED))
    return None


def _closed(board: Board) -> frozenset[Cell]:
    """The cells a won game keeps its mines under: covered, flagged or shown as mines."""
    return frozenset(c for c in board.cells() if board[c] in (UNKNOWN, FLAG, MINE))


# --- The screen ------------------------------------------------------------------------------

_bound_display: str | None = None


def _pyautogui(display: str) -> ModuleType:
    """pyautogui, working on ``display``.

    It opens its X connection when imported, from ``DISPLAY``, so ``DISPLAY`` is set before
    the first import, and a process can then click on that display only.

    :raises DesktopError: when pyautogui already works on another display.
    """
    global _bound_display
    if _bound_display is None:
        if "pyautogui" not in sys.modules:
            os.environ["DISPLAY"] = display
        _bound_display = os.environ.get("DISPLAY", display)
    if _bound_display != display:
        raise DesktopError(f"this process clicks on display {_bound_display} already, "
                           f"not {display}")
    with warnings.catch_warnings():
        # pyscreeze, imported by pyautogui, drops a `which` subprocess with its pipes open.
        warnings.simplefilter("ignore", ResourceWarning)
        import pyautogui

    pyautogui.FAILSAFE = True  # a pointer in a screen corner stops everything
    pyautogui.PAUSE = 0.0  # waits are for the game to redraw, polled by the caller
    return pyautogui


class Screen:
    """One X display: grabs through an open mss connection, pointer and keys through
    pyautogui (imported at the first action, so that reading alone never binds it).

    :raises DesktopError: when no display is named and ``DISPLAY`` is not set.
    """

    def __init__(self, display: str | None = None) -> None:
        name = display or os.environ.get("DISPLAY")
        if not name:
            raise DesktopError("no screen: DISPLAY is not set (autoplay demo plays on a "
                               "virtual one)")
        self.display = name
        self.capture = Capture(name)

    def close(self) -> None:
        """Close the grabbing connection."""
        self.capture.close()

    def search_area(self, monitor: int = 0, region: Region | None = None) -> Region:
        """Where to look for a board: ``region``, else monitor ``monitor`` (0: all of them).

        :raises DesktopError: when there is no such monitor, or ``region`` is not all on the
            screen (mss cannot grab beyond it).
        """
        monitors = self.capture.monitors()
        if region is not None:
            screen = monitors[0]
            if region.clipped(screen) != region:
                raise DesktopError(
                    f"the region {region.left},{region.top},{region.width},{region.height} is "
                    f"not all on the screen, {screen.left},{screen.top},{screen.width},"
                    f"{screen.height} (X,Y,W,H)")
            return region
        if not 0 <= monitor < len(monitors):
            raise DesktopError(f"no monitor {monitor}: this screen has monitors 0 (all) to "
                               f"{len(monitors) - 1}")
        return monitors[monitor]

    def click(self, x: int, y: int, button: Button) -> None:
        """Click at a screen point. Only :meth:`ScreenGame._press` calls this."""
        self._act(lambda gui: gui.click(x, y, button=button))

    def move(self, x: int, y: int) -> None:
        """Move the pointer (the fail-safe is checked first, as for every action)."""
        self._act(lambda gui: gui.moveTo(x, y))

    def keys(self, chord: str) -> None:
        """Press a key or a chord such as ``ctrl+r`` in the window that has the focus."""
        self._act(lambda gui: gui.hotkey(*chord.split("+")))

    def _act(self, action: Callable[[ModuleType], object]) -> None:
        """Do one pyautogui action; its fail-safe, which checks the pointer before every
        action, stops the run.

        :raises FailSafeStop: when the pointer is in a screen corner.
        :raises DisplayLost: when the display's server has gone.
        """
        gui = _pyautogui(self.display)
        from Xlib.error import ConnectionClosedError  # pyautogui's X connection, so loaded

        try:
            action(gui)
        except gui.FailSafeException:
            raise FailSafeStop("stopped: the mouse is in a screen corner (pyautogui's "
                               "fail-safe): move it away to play") from None
        except ConnectionClosedError:
            raise DisplayLost(self.display) from None


# --- A game on the screen --------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Click:
    """One click as the choke point sent it, and the rectangle it was checked against."""

    x: int
    y: int
    button: Button
    area: Region


def _inside(region: Region, x: int, y: int) -> bool:
    return (region.left <= x < region.left + region.width
            and region.top <= y < region.top + region.height)


def _screen_region(geometry: Geometry) -> Region:
    x0, y0, x1, y1 = geometry.box()
    return Region(x0, y0, x1 - x0, y1 - y0)


class ScreenGame:
    """A game on the screen, as a :class:`~autoplay.player.Game`.

    Built by :func:`find_game`. ``mines`` is the game's mine total when known (for a game of
    fixed levels, the count of its level of that size, which no other count may be): it lets the
    deducer use the count and the board tell a win. ``speed`` is a pause after each click,
    for a person to follow. ``on_frame`` sees the board at the start of each game (with
    True) and after every click, once drawn (with False).
    """

    def __init__(self, screen: Screen, reading: Reading, skin: Skin, search: Region, *,
                 mines: int | None = None, speed: float = 0.0, redraw_timeout: float = 2.0,
                 on_frame: Callable[[Image, bool], None] | None = None) -> None:
        self.screen, self.skin, self.search = screen, skin, search
        self.playbook = playbook_of(skin.name)
        cols, rows = reading.geometry.cols, reading.geometry.rows
        level = self.playbook.mines_of(cols, rows)
        if mines is not None and level is not None and mines != level:
            # A count too high would have a board that only looks won taken for a win.
            raise DesktopError(f"the {cols}x{rows} {skin.name} board is its level of {level} "
                               f"mines, not {mines}: is the mine count right?")
        if mines is None:
            mines = level
        if mines is not None and mines >= cols * rows:
            raise DesktopError(f"{mines} mines do not fit the {cols}x{rows} {skin.name} board "
                               f"with a cell to open: is the mine count right?")
        self.mines, self.speed, self.redraw_timeout = mines, speed, redraw_timeout
        self.on_frame = on_frame
        self.geometry = reading.geometry
        """Where the board is, in screen pixels."""
        self.clicks: list[Click] = []
        """Every click sent, in order: the record the choke point keeps."""
        self._last_read: tuple[Image, Reading] | None = None
        self._cache: tuple[Geometry, vision.ReadCache] | None = None
        """What the reads of the board's lattice keep for the next, and that lattice."""
        self._frame = self._grab()
        if self.playbook.hover:  # a covered cell under the pointer is lit: it reads as opened
            self._park(inside=False)
            self._frame = self._settled(self._grab())
            reading = self._read(self._frame)
            if not reading.is_complete():
                raise _unknown_cells(reading)
        self._board = reading.board.with_mines(mines)
        self._outcome: Outcome = judge(self._board)
        self._face: Image | None = None
        self._idle = 0
        self.sign_seen = False
        """Whether the game's own sign (its status words, face or dialog) showed the end."""
        self._sign_read = False
        """Whether the sign has shown an end in this run: here it can be read (its words
        are matched as pictures, which another font or theme would not match)."""
        self._start()

    # The Game protocol

    @property
    def outcome(self) -> Outcome:
        """How the game stands, as of the last board seen."""
        return self._outcome

    def observe(self) -> Board:
        """The board as it is now, from a fresh grab, checked to be the same game.

        :raises WindowLost: when the board is gone and not found elsewhere.
        :raises UnknownCells: when cells cannot be recognised, even after waiting.
        """
        if self._outcome == "playing":
            self._look(self._grab())
        return self._board

    def reveal(self, cell: Cell) -> None:
        """Left-click an unopened cell and wait for the game to draw what it opened."""
        self._click_cell(cell, "left")

    def flag(self, cell: Cell) -> None:
        """Right-click an unopened cell and wait for the flag to be drawn."""
        self._click_cell(cell, "right")

    # Games one after another

    @property
    def first_cell(self) -> Cell | None:
        """Where the rules say to open a game; None where any first click is a guess."""
        if self.playbook.first_click is None:
            return None
        return first_click_cell(self.geometry.cols, self.geometry.rows,
                                self.playbook.first_click)

    def new_game(self, *, timeout: float = 5.0) -> None:
        """Start the next game the game's own way: its keys, or a click on its face.

        :raises DesktopError: when the game has no way to start another, or none appears.
        """
        face = self.playbook.sign if isinstance(self.playbook.sign, Face) else None
        if self.playbook.new_game:
            self._park(inside=True)  # keys go to the window under the pointer, or focused
            for chord in self.playbook.new_game:
                self.screen.keys(chord)
            if self.playbook.hover:
                self._park(inside=False)
        elif face is not None:
            area = face.region(self.geometry)
            self._press(area.left + area.width // 2, area.top + area.height // 2, "left", area)
        else:
            raise DesktopError(f"autoplay does not know how to start a new {self.skin.name} "
                               f"game: start it and run autoplay again")
        deadline = time.monotonic() + timeout
        while True:
            frame = self.screen.capture.still(self._region(), interval=0.02)
            reading = self._read(frame)
            board = reading.board
            # A new game: nothing but unopened cells and counts, and not the last board.
            if (reading.is_complete() and board.states != self._board.states
                    and all(s == UNKNOWN or s >= 0 for s in board.states)
                    and judge(board.with_mines(self.mines)) == "playing"):
                break
            if time.monotonic() > deadline:
                if not reading.is_complete():
                    raise _unknown_cells(reading)
                raise DesktopError(f"no new {self.skin.name} game appeared within {timeout} s")
            time.sleep(0.05)
        self._board, self._frame, self._outcome = board.with_mines(self.mines), frame, "playing"
        self._idle = 0
        self.sign_seen = False
        self._start()

    def game_record(self, result: GameResult) -> GameRecord:
        """The statistics store's record of a game played here (3BV when the end showed
        the layout)."""
        layout = None if self._end_misread else layout_shown(result.board, self._outcome,
                                                              self.playbook)
        width, height = self.geometry.cols, self.geometry.rows
        record = GameRecord.of(
            result, source=f"desktop/{self.skin.name}", width=width, height=height,
            mines=self.mines if self.mines is not None or layout is None else len(layout),
            rules="standard", first_click=self.playbook.first_click or "none", seed=None,
            three_bv=None if layout is None else three_bv(width, height, layout))
        # Every click on this game's board: the player's, and the flags a game wants at
        # the end (flags_to_win).
        clicks = len(self.clicks) - self._first_click
        if clicks > result.clicks:
            log.info("%s more on the %s board, which flags every mine to call a game won",
                     plural(clicks - result.clicks, "flag"), self.skin.name)
        return dataclasses.replace(record, clicks=clicks)

    @property
    def frame(self) -> Image:
        """The board's pixels as last grabbed."""
        return self._frame

    def local_geometry(self) -> Geometry:
        """The board's lattice in :attr:`frame`'s pixels."""
        return self._local()

    # Inside

    def _start(self) -> None:
        """A game begins: remember the face's look, to see it change at the end."""
        self._first_click = len(self.clicks)
        self._end_misread = False
        """The board the game ended on did not read as the game it was (a marked loss)."""
        face = self.playbook.sign
        self._face = self._grab_at(face.region(self.geometry)) if isinstance(face, Face) else None
        if self.on_frame is not None:
            self.on_frame(self._frame, True)

    def _region(self) -> Region:
        return _screen_region(self.geometry)

    def _local(self) -> Geometry:
        region = self._region()
        return self.geometry.moved(-region.left, -region.top)

    def _grab(self) -> Image:
        return self.screen.capture.grab(self._region())

    def _grab_at(self, region: Region) -> Image:
        """A rectangle beside the board, cut to the screen (blank when wholly off it)."""
        inside = region.clipped(self.screen.capture.monitors()[0])
        if not inside.width or not inside.height:
            return np.zeros((1, 1, 3), np.uint8)
        return self.screen.capture.grab(inside)

    def _read(self, frame: Image) -> Reading:
        """The board in ``frame``; the last frame's reading is kept, as a click's answer
        is read once to see that it came and once more to play on."""
        local = self._local()
        if self._last_read is None or self._last_read[0] is not frame or (
                self._last_read[1].geometry != local):
            if self._cache is None or self._cache[0] != local:
                self._cache = local, vision.ReadCache()
            self._last_read = frame, vision.read_board(frame, local, self.skin,
                                                       cache=self._cache[1])
        return self._last_read[1]

    def _click_cell(self, cell: Cell, button: Button) -> None:
        if self._outcome != "playing":
            raise DesktopError(f"the game is over ({self._outcome}): no more clicks")
        if not (0 <= cell.row < self.geometry.rows and 0 <= cell.col < self.geometry.cols):
            raise DesktopError(f"{tuple(cell)} is not a cell of the "
                               f"{self.geometry.cols}x{self.geometry.rows} board")
        x, y = self.geometry.centre(cell)
        deadline = time.monotonic() + self.redraw_timeout
        self._press(round(x), round(y), button, self._region())
        if self.playbook.hover:
            self._park(inside=False)
        frame, changed = self.screen.capture.changed(self._region(), self._frame,
                                                     timeout=self.redraw_timeout,
                                                     interval=self.playbook.still)
        # A game may draw the pressed cell before it answers the release; that look holds
        # still for as long as the game is slow to answer.
        while (changed and not self._answered(frame, cell) and time.monotonic() < deadline
               and not self._covered_by_dialog(frame)):
            frame = self.screen.capture.still(self._region(), interval=self.playbook.still)
        self._idle = 0 if changed else self._idle + 1
        if self._idle >= 2:
            raise WindowLost(f"two clicks on the {self.skin.name} board changed nothing: "
                             f"is the game paused, covered or not responding?")
        self._look(frame, cell if button == "left" else None)
        if self.on_frame is not None:
            self.on_frame(self._frame, False)
        if self.speed:
            time.sleep(self.speed)

    def _answered(self, frame: Image, cell: Cell) -> bool:
        """True when ``frame`` shows the game's answer to a click on ``cell``: the cell no
        longer unopened, and no empty cell beside an unopened or flagged one (which is how
        a pressed, not yet opened, cell looks: a game opens every cell around an empty one,
        and the bot flags only mines, which no empty cell touches); or the game won, its
        flags unread."""
        reading = self._read(frame)
        if not reading.is_complete():
            return self._won_with_flags_unread(reading) is not None
        board = reading.board
        return board[cell] != UNKNOWN and not any(
            board.states[i] == 0 and any(board.states[j] in (UNKNOWN, FLAG)
                                         for j in board.neighbour_indices(i))
            for i in range(len(board.states)))

    def _press(self, x: int, y: int, button: Button, area: Region) -> None:
        """The choke point every click goes through: the point must lie inside ``area``,
        which must be the board's rectangle or the face the playbook declares."""
        allowed = [self._region()]
        if isinstance(self.playbook.sign, Face):
            allowed.append(self.playbook.sign.region(self.geometry))
        if area not in allowed or not _inside(area, x, y):
            raise DesktopError(f"refusing to click at ({x}, {y}): outside the "
                               f"{self.skin.name} board at {self._region()}")
        self.clicks.append(Click(x, y, button, area))
        self.screen.click(x, y, button)

    def _park(self, *, inside: bool) -> None:
        """Move the pointer over the board's middle, or just left of it: never to a corner
        (the fail-safe), and within the game's window (where focus follows the pointer)."""
        x0, y0, x1, y1 = self.geometry.box()
        if inside:
            self.screen.move((x0 + x1) // 2, (y0 + y1) // 2)
        else:
            self.screen.move(max(x0 - round(self.geometry.pitch_x / 2), 1), (y0 + y1) // 2)

    def _look(self, frame: Image, opened: Cell | None = None) -> None:
        """Read ``frame``, the answer to opening ``opened`` if given; make sure it is the same
        game, found again if it moved (or won, its flags unread:
        :meth:`_won_with_flags_unread`); then judge the game and, if it ended, wait for its
        end to be shown."""
        reading = self._read(frame)
        if not self._read_whole(reading) and not self._covered_by_dialog(frame):
            # An animation (a board flashing at the end) or a window in the way: wait.
            frame = self._settled(frame)
            reading = self._read(frame)
        board = reading.board
        if not self._marked_loss(reading, opened) and (
                not reading.is_complete() or not _same_game(self._board, board)):
            if self._dialog_shown():
                self._outcome = "won"
                self._finish()
                return
            won = self._won_with_flags_unread(reading)
            if won is None:
                frame, reading = self._relocate(opened, reading)
                board = reading.board
            else:
                log.info("the %s game is won: %s not recognised taken for the game's flags",
                         self.skin.name, plural(len(reading.unrecognized), "cell"))
                board = won
        self._frame, self._board = frame, board.with_mines(self.mines)
        self._outcome = judge(self._board)
        if self._outcome != "playing":
            self._finish()

    def _read_whole(self, reading: Reading) -> bool:
        """Whether ``reading`` holds the whole board: every cell recognised, or the game won
        with its flags unread, which no wait would make read."""
        return reading.is_complete() or self._won_with_flags_unread(reading) is not None

    def _won_with_flags_unread(self, reading: Reading) -> Board | None:
        """The board won, when ``reading`` is of a game that flags every mine once won
        (:attr:`Playbook.flags_mines_when_won`), its status words say so, and the cells it
        left unrecognised are those flags: cells unopened before, and, with them as
        flags, no cell left covered, every opened cell showing its count as before and
        (when known) as many flags as mines. Tatham's Mines at tiles under 20 px draws
        flags its skin does not recognise; its counts read."""
        sign = self.playbook.sign
        if not (self.playbook.flags_mines_when_won and isinstance(sign, StatusText)):
            return None
        unread = [u.cell for u in reading.unrecognized]
        if not unread or any(self._board[cell] not in (UNKNOWN, FLAG) for cell in unread):
            return None
        board = reading.board.with_states(dict.fromkeys(unread, FLAG))
        if (board.unknown_cells() or not _same_game(self._board, board)
                or self.mines not in (None, len(board.flags()))):
            return None
        if sign.read(self._grab_at(sign.region(self.geometry))) != "won":
            return None
        return board

    def _marked_loss(self, reading: Reading, opened: Cell | None) -> bool:
        """True when ``reading`` shows the loss of a game that draws over its cells then
        (:attr:`Playbook.marks_loss`), the mine gone off under ``opened``. When the other
        cells read otherwise, or not at all, that is said, and the layout shown is not
        taken for the game's 3BV."""
        if not (self.playbook.marks_loss and _lost_at(self._board, reading.board, opened)):
            return False
        changed = _recounted(self._board, reading.board)
        if changed or not reading.is_complete():
            self._end_misread = True
            log.warning("the %s game was lost at %s; at its end %s read otherwise and "
                        "%d not at all", self.skin.name, tuple(opened or ()),
                        plural(changed, "opened cell"), len(reading.unrecognized))
        return True

    def _settled(self, frame: Image, timeout: float = 2.0,
                 whole: Callable[[Reading], bool] = Reading.is_complete) -> Image:
        """The board once it reads as ``whole`` (every cell recognised) or stops changing
        for a while."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            frame = self.screen.capture.still(self._region(), interval=0.1)
            if whole(self._read(frame)):
                break
        return frame

    def _relocate(self, opened: Cell | None, last: Reading) -> tuple[Image, Reading]:
        """The board found again in the search area: moved, it is played where it is
        (``opened``: the cell just opened, as for :meth:`_marked_loss`; ``last``: the
        reading where it was, which sent it looking).

        :raises WindowLost: when it is not there, or is another board.
        :raises UnknownCells: when it is there and the same, with cells not recognised;
            or when it is not found again but ``last`` is still the same game, as many of
            its cells recognised as make a board (:data:`~autoplay.locate.MIN_RECOGNISED`):
            cells drawn in looks its skin does not know (sgt-mines' tiles at some sizes
            under 20 px), not a board gone.
        """
        image = self.screen.capture.grab(self.search)
        try:
            found = locate.locate_board(image, self.skin)
        except NoBoardFound:
            found = None
        if found is None or (found.rows, found.cols) != (self.geometry.rows,
                                                         self.geometry.cols):
            share = 1 - len(last.unrecognized) / len(last.board.states)
            if (last.unrecognized and share >= locate.MIN_RECOGNISED
                    and _same_game(self._board, last.board)):
                raise _unknown_cells(last)
            if found is None:
                raise WindowLost(f"the {self.skin.name} board is gone from the screen "
                                 f"(closed, covered, paused or moved away): stopped")
            raise WindowLost(f"the {self.geometry.cols}x{self.geometry.rows} "
                             f"{self.skin.name} board is gone (a {found.cols}x{found.rows} "
                             f"board is there instead): stopped")
        moved = found.moved(self.search.left, self.search.top)
        if not moved.near(self.geometry):
            log.warning("the %s board moved from %s to %s", self.skin.name,
                        self.geometry.box(), moved.box())
        self.geometry = moved
        frame = self._settled(self._grab())
        again = self._read(frame)
        if self._marked_loss(again, opened):
            return frame, again
        if not _same_game(self._board, again.board):
            raise WindowLost(f"the {self.skin.name} board changed under the bot (an opened "
                             f"cell shows another count: another game, a window over it, or a "
                             f"misread): stopped")
        if not again.is_complete():
            raise _unknown_cells(again)
        return frame, again

    def _close_dialog(self, sign: Dialog, timeout: float) -> None:
        """Close the game's dialog with its key, trying each window of its name (a toolkit
        can show one and drop another of the same name while it opens).

        :raises DesktopError: when it is still there after ``timeout`` seconds.
        """
        deadline = time.monotonic() + timeout
        while windows := self._windows_of(sign):
            if time.monotonic() > deadline:
                raise DesktopError(f"the {self.skin.name} {sign.name!r} window does not close")
            for window in windows:
                try:
                    xdotool(self.screen.display, "windowfocus", "--sync", window)
                    xdotool(self.screen.display, "key", "--window", window, sign.close)
                except DesktopError:
                    continue  # gone meanwhile
            time.sleep(0.05)

    def _dialog_shown(self) -> bool:
        sign = self.playbook.sign
        return isinstance(sign, Dialog) and bool(self._windows_of(sign))

    def _covered_by_dialog(self, frame: Image) -> bool:
        """True when the game's win dialog is up and covers the board in ``frame``: GNOME
        Mines opens it over the board at once, and waiting for the board to read again,
        then to settle, took 4 s a won game."""
        return not self._read(frame).is_complete() and self._dialog_shown()

    def _windows_of(self, sign: Dialog) -> list[str]:
        """The visible windows named as the game's dialog."""
        return xdotool(self.screen.display, "search", "--onlyvisible", "--name",
                       sign.name).split()

    def _sign_on_screen(self) -> bool:
        """Whether the game's sign always shows its end, where it can be seen: its status
        words or face, read before in this run, on the screen, all their height and as
        wide as the board at least (the strip searched for words reaches past the board's
        sides, and may be off the screen there). GNOME Mines opens its window only for a
        time in its top ten."""
        sign = self.playbook.sign
        if not isinstance(sign, StatusText | Face) or not self._sign_read:
            return False
        region = sign.region(self.geometry)
        seen = region.clipped(self.screen.capture.monitors()[0])
        x0, _, x1, _ = self.geometry.box()
        return seen.height == region.height and seen.width >= min(region.width, x1 - x0)

    def _still_played(self, frame: Image) -> bool:
        """Whether the game, its board at the end as ``frame`` shows it, looks won but is
        not over: with a mine count too high, the cells left can all look like mines.

        A game that flags every mine when won (:attr:`Playbook.flags_mines_when_won`) is
        not won while it shows covered cells. Else a covered cell is right-clicked, a
        flagged one first (the bot flags every cell left under ``--flag``, and in a game
        that wants every mine flagged): none of the shipped games with a sign takes a move
        once over, and each flags or unflags a cell while played. A cell that changed is
        put back as it was."""
        reading = self._read(frame)
        if not reading.is_complete():
            return False
        board = reading.board
        if self.playbook.flags_mines_when_won and board.unknown_cells():
            return True
        cells = board.flags() or board.unknown_cells()
        if not cells:
            return False
        cell, was = cells[0], board[cells[0]]
        state: int | None = was
        for presses in range(3):  # a flag can turn to a question mark, then back
            if presses:  # GNOME Mines takes a second click this soon for a double one
                time.sleep(_DOUBLE_CLICK)
            state = self._right_click(cell, state)
            if state == was:
                return presses > 0
        raise DesktopError(f"{tuple(cell)} of the {self.skin.name} board did not come back "
                           f"as it was after three right-clicks: stopped")

    def _right_click(self, cell: Cell, state: int | None) -> int | None:
        """Right-click ``cell`` (whether the game is over or not) and return what it reads
        as once it reads as another covered look than ``state`` (None: not recognised, a
        question mark), or after the redraw timeout. A frame that holds still can come
        before the game has drawn the click, and GNOME Mines lights the cell under the
        pointer, which then reads as opened, for a moment after the pointer leaves it: a
        right-click opens no cell."""
        x, y = self.geometry.centre(cell)
        self._press(round(x), round(y), "right", self._region())
        if self.playbook.hover:
            self._park(inside=False)
        deadline = time.monotonic() + self.redraw_timeout
        while True:
            reading = self._read(self.screen.capture.still(self._region(),
                                                           interval=self.playbook.still))
            now = reading.board[cell] if reading.is_complete() else None
            if (now != state and now in (UNKNOWN, FLAG, None)) or time.monotonic() >= deadline:
                return now
            time.sleep(0.02)

    def _finish(self, timeout: float = 3.0) -> None:
        """Wait until the game shows its end its own way (its status words, its face, its
        dialog, which is then closed), and keep the board as finally drawn.

        :raises DesktopError: when the game's sign says the other outcome than the board.
        """
        sign = self.playbook.sign
        if self.playbook.flags_to_win and self._outcome == "won":
            for cell in self._board.unknown_cells():
                x, y = self.geometry.centre(cell)
                self._press(round(x), round(y), "right", self._region())
                self._frame = self.screen.capture.changed(
                    self._region(), self._frame, timeout=self.redraw_timeout,
                    interval=self.playbook.still)[0]
        deadline = time.monotonic() + timeout
        self.sign_seen = False
        while sign is not None and not self.sign_seen and time.monotonic() < deadline:
            if isinstance(sign, Dialog):
                self.sign_seen = self._dialog_shown()
                if self.sign_seen or self._outcome == "lost":  # no dialog after a loss
                    break
            elif isinstance(sign, StatusText):
                said = sign.read(self._grab_at(sign.region(self.geometry)))
                if said is not None and said != self._outcome:
                    raise DesktopError(f"the board says the game is {self._outcome}, "
                                       f"{self.skin.name} says {said}")
                self.sign_seen = said is not None
            else:
                face = self._grab_at(sign.region(self.geometry))
                self.sign_seen = self._face is not None and not np.array_equal(face, self._face)
            if not self.sign_seen:
                time.sleep(0.02)
        self._sign_read |= self.sign_seen
        if isinstance(sign, Dialog) and self.sign_seen:
            self._close_dialog(sign, timeout)
        frame = self._settled(self._grab(), whole=self._read_whole)
        reading = self._read(frame)
        if sign is not None and not self.sign_seen:
            if self._outcome == "won" and (self._sign_on_screen()
                                           or self._still_played(frame)):
                counted = "" if self.mines is None else f" with {self.mines} mines"
                raise DesktopError(f"the board looks won{counted}, but {self.skin.name} did "
                                   f"not say so within {timeout} s: "
                                   + ("a misread?" if self.mines is None
                                      else "is the mine count right?"))
            if not isinstance(sign, Dialog):  # its window is for a top-ten time alone
                log.warning("%s did not show that the game is %s within %s s",
                            self.skin.name, self._outcome, timeout)
        if reading.is_complete() and _same_game(self._board, reading.board):
            self._frame, self._board = frame, reading.board.with_mines(self.mines)


_DOUBLE_CLICK = 0.5
"""Seconds between two clicks on one cell that no game takes for a double click (GTK's
is 0.4 s by default)."""


def _unknown_cells(reading: Reading) -> UnknownCells:
    return UnknownCells(f"{plural(len(reading.unrecognized), 'cell')} of the {reading.skin} "
                        f"board not recognised, so not guessed: {vision.describe(reading)}",
                        reading)


def _same_game(before: Board, now: Board) -> bool:
    """True when ``now`` can follow ``before`` in one game: same size, and every opened
    cell showing the count it showed."""
    return (before.width, before.height) == (now.width, now.height) and not _recounted(
        before, now)


def _recounted(before: Board, now: Board) -> int:
    """How many cells opened in ``before`` show another count, or none, in ``now`` (a board
    of the same size)."""
    return sum(b >= 0 and b != n for b, n in zip(before.states, now.states))


def _lost_at(before: Board, now: Board, opened: Cell | None) -> bool:
    """True when ``now`` is ``before`` with the mine gone off under ``opened``, the cell
    just opened, whatever the other cells read: a game that draws over them at a loss
    (:attr:`Playbook.marks_loss`) is over.

    >>> _lost_at(Board.parse("1."), Board.parse("0X"), Cell(0, 1))
    True
    """
    return (opened is not None and (before.width, before.height) == (now.width, now.height)
            and before[opened] == UNKNOWN and now[opened] == EXPLODED)


_SETTLE = 2.0
"""How long past its timeout :func:`find_game` waits for a board to hold still."""


def _still_around(screen: Screen, search: Region, frame: Image, reading: Reading) -> bool:
    """Whether the board read in ``frame`` and a cell around it look the same a moment
    later (one grab and a comparison: locating again can take seconds on a big screen)."""
    time.sleep(0.1)
    again = screen.capture.grab(search)
    x0, y0, x1, y1 = reading.geometry.grown(1, 1, 1, 1).box()
    x0, y0 = max(x0, 0), max(y0, 0)
    return bool(np.array_equal(frame[y0:y1, x0:x1], again[y0:y1, x0:x1]))


def find_game(screen: Screen, search: Region, skins: list[Skin], *, mines: int | None = None,
              speed: float = 0.0, on_frame: Callable[[Image, bool], None] | None = None,
              timeout: float = 0.0) -> ScreenGame:
    """Find a board of one of ``skins`` in ``search`` and make it a game to play, looking
    again for up to ``timeout`` seconds (a game just started may not be drawn yet).

    A board is taken once it and a cell's width around it look the same a moment later: a
    game drawing its window (or its next level) shows part of a board for a moment.

    :raises NoBoardFound: when there is none, or only one cut or reaching the edge of
        ``search`` (:class:`BoardCut`): clicks next to a hidden part could be blind.
    :raises UnknownCells: when one is found but some of its cells are not recognised.
    :raises DesktopError: when the board keeps changing past the timeout.
    """
    deadline = time.monotonic() + timeout
    while True:
        frame = screen.capture.grab(search)
        try:
            reading = locate.read_screenshot(frame, skins, place="area of the screen searched")
        except BoardCut as cut:
            if time.monotonic() > deadline:
                raise (_cut_on_screen(cut.skin, cut.edges) if cut.edges else cut) from None
        except NoBoardFound:
            if time.monotonic() > deadline:
                raise
        else:
            if reading.edges:
                if time.monotonic() > deadline:
                    raise _cut_on_screen(reading.skin, reading.edges)
            elif reading.is_complete() and _still_around(screen, search, frame, reading):
                break
            if not reading.is_complete() and time.monotonic() > deadline:
                raise _unknown_cells(reading)
            if time.monotonic() > deadline + _SETTLE:
                raise DesktopError(f"the {reading.skin} board kept changing for "
                                   f"{timeout + _SETTLE:.0f} s")
        time.sleep(0.1)
    if reading.others:
        log.warning("the area of the screen searched shows %s (--region narrows the search)",
                    locate.others_in_words(reading))
    skin = next(skin for skin in skins if skin.name == reading.skin)
    geometry = reading.geometry.moved(search.left, search.top)
    placed = Reading(reading.board, geometry, reading.skin)
    return ScreenGame(screen, placed, skin, search, mines=mines, speed=speed, on_frame=on_frame)


def _cut_on_screen(skin: str, edges: tuple[str, ...]) -> BoardCut:
    """A board reaching or cut by the ``edges`` of the area searched, in words for a screen
    rather than a screenshot."""
    return BoardCut(f"the {skin} board reaches the {locate.edges_in_words(edges)} of the area "
                    f"searched, so part of it may be hidden: move its window fully into view, "
                    f"or widen --region", skin, edges)


def play_games(game: ScreenGame, games: int, play_one: Callable[[ScreenGame], GameResult]
               ) -> Iterator[GameRecord]:
    """Play ``games`` games in a row, each started the game's own way, yielding each
    game's record as it ends (so a caller can store it at once).

    A game already over on the screen is not one of them: a new one is started first."""
    if game.outcome != "playing":
        game.new_game()
    for index in range(games):
        if index:
            game.new_game()
        yield game.game_record(play_one(game))
