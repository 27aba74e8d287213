"""The errors autoplay raises for bad input (any other exception is a bug), the wording of
the counts in their messages, the numbering of the lines they name, and the word a run
stops with."""

from __future__ import annotations

import re
import signal
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence

    from autoplay.board import Board
    from autoplay.vision import Reading


STOPS: dict[int, str] = {signal.SIGINT: "Interrupted", signal.SIGTERM: "Terminated",
                         signal.SIGHUP: "Hangup"}
"""Ctrl-C, the signal ``kill`` and ``timeout`` send, and a closed terminal's: each stops a
run the same way, and the run then says this word (as a shell says a process's end)."""


def plural(count: int, noun: str, many: str | None = None) -> str:
    """``count`` and its noun, which takes an s unless ``count`` is 1: messages say "1 mine"
    and "2 mines" (``many``: the plural of a noun that takes more than an s)."""
    return f"{count} {noun if count == 1 else many or noun + 's'}"


_LINE_BREAK = re.compile(r"\r\n|\r|\n")


def numbered_lines(text: str) -> Iterator[tuple[int, str]]:
    """The lines of a text file, numbered from 1 as an editor numbers them, for messages that
    name a line: only ``\\n``, ``\\r\\n`` and ``\\r`` end one, as Python's universal newlines
    (and most editors) end lines (:meth:`str.splitlines` also breaks at a form feed or
    U+2028, which an editor shows inside a line). A break at the very end starts no line.

    >>> list(numbered_lines("1\\f2\\r\\n3"))
    [(1, '1\\x0c2'), (2, '3')]
    >>> [list(numbered_lines(text)) for text in ("1\\r\\n", "1\\r", "1\\n\\n")]
    [[(1, '1')], [(1, '1')], [(1, '1'), (2, '')]]
    >>> list(numbered_lines(""))
    [(1, '')]
    """
    return enumerate(_LINE_BREAK.split(text.removesuffix("\n").removesuffix("\r")), start=1)


def listed(words: Sequence[str]) -> str:
    """``words`` as a message lists them: "top, bottom and left"."""
    *others, last = words
    return f"{', '.join(others)} and {last}" if others else last


class AutoplayError(Exception):
    """Base of every error caused by input or surroundings rather than by a bug.

    The command line prints these as one line (``Error: <message>``) and exits non-zero.
    """

    def __reduce__(self) -> tuple[object, ...]:
        # A worker process's error reaches the main one pickled: it is made again from its
        # message and attributes, not by its own constructor, whose arguments differ.
        return _made_again, (type(self), self.args, self.__dict__)


def _made_again(kind: type[AutoplayError], args: tuple[object, ...],
                attributes: dict[str, object]) -> AutoplayError:
    error = kind.__new__(kind, *args)
    Exception.__init__(error, *args)
    error.__dict__.update(attributes)
    return error


class BoardFormatError(AutoplayError, ValueError):
    """A text board that cannot be parsed; the message names the line and column."""


class InconsistentBoard(AutoplayError):
    """A board that no mine layout fits: a misread, a wrong flag or a made-up position."""


class SolverGaveUp(AutoplayError):
    """Z3 stopped without an answer for a reason other than the time asked: out of memory."""


class OutOfTime(AutoplayError):
    """A search that used up the seconds it was given before it had an answer."""


class ImpossibleCount(BoardFormatError, InconsistentBoard):
    """A count larger than the cell's neighbourhood: a format fault no layout can fit.

    ``board`` is the board as parsed, so a caller can still report its size.
    """

    def __init__(self, message: str, board: Board) -> None:
        super().__init__(message)
        self.board = board


class NonogramFormatError(AutoplayError, ValueError):
    """Nonogram clues that cannot be parsed, or that no grid of their size could fit.

    The message names the line (and the row or column) at fault.
    """


class UnfittableClues(NonogramFormatError):
    """Clues no grid of their size can fit: a clue longer than its stripe, or rows and
    columns that fill different numbers of cells. An answer as much as a fault: ``--json``
    reports it as no solution, for which ``rows`` and ``cols`` give the size.
    """

    def __init__(self, message: str, rows: int, cols: int) -> None:
        super().__init__(message)
        self.rows, self.cols = rows, cols


class UnreadableImage(AutoplayError):
    """A file that is not an image, or a damaged or truncated one."""


class NoBoardFound(AutoplayError):
    """An image in which no Minesweeper board of a known skin could be found."""


class BoardCut(NoBoardFound):
    """An image whose edge, or something in it, cuts through the board's covered cells: the
    whole board is not in it, and what the part shown would prove next to the cut may be
    false."""

    def __init__(self, message: str, skin: str, edges: tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.skin, self.edges = skin, edges
        """The board's skin, and the image's edges ("top", "right"...) that cut it: none
        when the cut is inside the image."""


class UnknownCells(AutoplayError):
    """A board read from an image with cells no template matched, so it is not deduced.

    ``reading`` is the :class:`~autoplay.vision.Reading`, with those cells listed.
    """

    def __init__(self, message: str, reading: Reading) -> None:
        super().__init__(message)
        self.reading = reading


class SkinError(AutoplayError):
    """A skin that is not installed, cannot be loaded, or cannot be learned."""


class WorkersFailed(AutoplayError):
    """The processes that play games side by side could not be started."""


class DesktopError(AutoplayError):
    """The X server or a game did not start, or its window did not appear in time."""


class WindowLost(DesktopError):
    """The game's board left the screen while being played (closed, covered or replaced),
    so the bot stopped rather than click blind."""


class DisplayLost(DesktopError):
    """The X display stopped answering while in use: its server ended."""

    def __init__(self, display: str | None) -> None:
        super().__init__(f"the display {display} stopped answering (has its X server ended?)")


class FailSafeStop(AutoplayError):
    """The person at the screen moved the pointer to a corner: pyautogui's fail-safe
    stopped the bot before its next action."""
