"""The player: one loop that plays any Minesweeper game it can observe and click.

:func:`play` sees a game only through :class:`Game` (observe the board, reveal a cell, flag a
cell, and whether the game is over), so the simulator and a real desktop window are played by
the same code. Each turn:

1. every cell proven safe is revealed (the cheap saturation stage of
   :func:`~autoplay.deduction.deduce` first, the complete Z3 proof only when it finds none);
2. when nothing is proven safe, a cell is guessed by the game's :data:`Strategy`: by default
   the one that looks past the next click (:func:`autoplay.lookahead.choose_guess`), or the
   lowest exact mine probability alone (:func:`autoplay.odds.lowest_probability_guess`), kept to
   measure the difference on the same games.

So a cell that is not proven safe is never clicked while one that is exists. The first click
of a game follows its rule set (:func:`first_click_cell`) and is not counted as a guess: the
rules, not the odds, make it safe.

>>> from autoplay.sim import SimGame
>>> game = SimGame(9, 9, 10, rng=random.Random(3))
>>> result = play(game, rng=random.Random(3), first_cell=first_click_cell(9, 9, "safe"))
>>> result.won, result.clicks > 0, game.outcome == ("won" if result.won else "lost")
(True, True, True)
"""

from __future__ import annotations

import logging
import random
import time
from dataclasses import dataclass
from typing import Literal, Protocol

from autoplay import lookahead, odds
from autoplay.board import UNKNOWN, Board, Cell
from autoplay.boxes import DEFAULT_BUDGET
from autoplay.deduction import deduce
from autoplay.errors import plural
from autoplay.odds import Guess

log = logging.getLogger(__name__)

Rules = Literal["standard", "kaboom"]
"""Mines placed before play (``"standard"``), or as the player clicks (``"kaboom"``)."""
FirstClick = Literal["safe", "opening"]
"""What a game promises about its first click: no mine there, or none there nor around it."""
Outcome = Literal["playing", "won", "lost"]
Strategy = Literal["lookahead", "lowest-probability"]
"""How guesses are chosen: looking past the next click, or by the lowest probability alone."""
STRATEGIES: tuple[Strategy, ...] = ("lookahead", "lowest-probability")
MAX_SIDE = 1000
"""The longest side of a board the simulator plays and a game is recorded with: far past any
real game, short of exhausting memory."""


class Game(Protocol):
    """A game the player can drive: a simulator, or a window on the screen."""

    @property
    def outcome(self) -> Outcome:
        """Whether the game goes on, or how it ended."""
        ...

    def observe(self) -> Board:
        """The board as a player sees it now."""
        ...

    def reveal(self, cell: Cell) -> None:
        """Open an unopened cell."""
        ...

    def flag(self, cell: Cell) -> None:
        """Put a flag on an unopened cell."""
        ...


@dataclass(frozen=True, slots=True)
class GameResult:
    """How one game went, as the statistics store records it."""

    won: bool
    clicks: int
    """Every click sent to the game: reveals, and flags when flagging."""
    guesses: tuple[Guess, ...]
    """The cells opened without proof, in order, with the odds each was chosen on."""
    seconds: float
    """Wall time from the first observation to the end of the game."""
    first_cell: Cell | None
    """The cell the game was opened with, when the rules chose it."""
    board: Board
    """The last board seen: after a loss, games show the mines on it."""
    strategy: Strategy = "lookahead"
    """How the guesses were chosen."""


def first_click_cell(width: int, height: int, first_click: FirstClick) -> Cell:
    """Where to open a game, given what its rules promise about the first click.

    Chosen by measurement (``autoplay sim --first-cell``, the table in the README). A first
    click that is merely safe goes in the corner (0, 0): with only three neighbours it is
    the likeliest to show a zero and open an area, and it beat (1, 1) and (2, 2) on every
    preset, and (0, 2) on expert. A first click that is an opening anyway goes to (3, 3),
    three cells in from the corner (on a small board, no further than its middle): the area
    it opens then has cells beyond it on every side, which gives its border more counts to
    work from; on expert it measured best of (0, 0) to (4, 4), though within the noise of
    (2, 2).

    >>> first_click_cell(30, 16, "safe"), first_click_cell(30, 16, "opening")
    (Cell(row=0, col=0), Cell(row=3, col=3))
    """
    if first_click == "safe":
        return Cell(0, 0)
    return Cell(min(3, (height - 1) // 2), min(3, (width - 1) // 2))


def play(game: Game, *, rng: random.Random, first_cell: Cell | None = None,
         flag_mines: bool = False, budget: int = DEFAULT_BUDGET,
         strategy: Strategy = "lookahead") -> GameResult:
    """Play ``game`` to its end.

    ``first_cell`` opens a game that has no opened cell yet (without it the first move is
    chosen like any guess). ``flag_mines`` flags each proven mine, for games where a person
    watches. ``budget`` bounds the work of each guess (see :mod:`autoplay.odds`). ``rng``
    breaks ties between equally good guesses, which ``strategy`` chooses.

    :raises InconsistentBoard: when the board the game shows fits no mine layout.
    """
    start = time.perf_counter()
    clicks = 0
    guesses: list[Guess] = []
    board = game.observe()
    opened = first_cell if first_cell is not None and board.is_new() else None
    if opened is not None:
        log.debug("first click %s", opened)
        game.reveal(opened)
        clicks += 1
    while game.outcome == "playing":
        board = game.observe()
        # Complete whenever it proves nothing safe: a guess is then truly needed.
        deduction = deduce(board, quick=True)
        if flag_mines:
            for cell in sorted(deduction.mines):
                # Looked at again before each click, as before each reveal: a game on the
                # screen checks then that its board is still there and the same.
                if game.outcome == "playing" and game.observe()[cell] == UNKNOWN:
                    game.flag(cell)
                    clicks += 1
        if not deduction.has_safe():
            choose = (lookahead.choose_guess if strategy == "lookahead"
                      else odds.lowest_probability_guess)
            # Without the mine count, guessed on an assumed one: proofs never use it.
            guess = choose(odds.assume_mines(board, budget=budget), rng, budget=budget,
                           proven=deduction)
            log.debug("guess %s p=%.3f%s: %s", guess.cell, guess.probability,
                      "" if guess.exact else " (estimate)", guess.reason)
            guesses.append(guess)
            game.reveal(guess.cell)
            clicks += 1
            continue
        for cell in sorted(deduction.safe):
            # An earlier reveal may have opened this cell already, as part of an opening.
            if game.outcome != "playing" or game.observe()[cell] != UNKNOWN:
                continue
            log.debug("reveal %s: proven safe", cell)
            game.reveal(cell)
            clicks += 1
    result = GameResult(game.outcome == "won", clicks, tuple(guesses),
                        time.perf_counter() - start, opened, game.observe(), strategy)
    log.info("game %s after %s and %s in %.3f s", "won" if result.won else "lost",
             plural(result.clicks, "click"), plural(len(result.guesses), "guess", "guesses"),
             result.seconds)
    return result
