"""A Minesweeper game in memory: the simulator every headless measurement plays.

Mines are placed at the first reveal, so the first click obeys the rule set: ``"safe"``
(the clicked cell holds no mine; it may show a number) or ``"opening"`` (the clicked cell and
its neighbours hold none, so it opens an area). All randomness comes from the ``rng`` given,
so a seed replays a game exactly.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from typing import Literal

from autoplay.board import EXPLODED, FLAG, MINE, UNKNOWN, WRONG_FLAG, Board, Cell

FirstClick = Literal["safe", "opening"]
Outcome = Literal["playing", "won", "lost"]


class SimGame:
    """A game on a ``width`` x ``height`` grid with ``mines`` mines.

    >>> game = SimGame(9, 9, 10, rng=random.Random(1), first_click="opening")
    >>> game.reveal(Cell(4, 4))
    >>> game.observe()[Cell(4, 4)]
    0
    """

    def __init__(self, width: int, height: int, mines: int, *, rng: random.Random,
                 first_click: FirstClick = "safe") -> None:
        spare = 9 if first_click == "opening" else 1
        if not 0 <= mines <= width * height - spare:
            raise ValueError(f"{mines} mines do not fit a {width}x{height} board with a "
                             f"first click that is {first_click}")
        self.width, self.height, self.mines = width, height, mines
        self.first_click: FirstClick = first_click
        self._rng = rng
        self._empty = Board.empty(width, height, mines)
        self._states = list(self._empty.states)
        self._mine_at: list[bool] | None = None
        self._hidden_safe = width * height - mines
        self.outcome: Outcome = "playing"

    @classmethod
    def with_layout(cls, width: int, height: int, layout: Iterable[Cell]) -> SimGame:
        """A game whose mines are given rather than drawn: to replay a known board."""
        mines = set(layout)
        game = cls(width, height, len(mines), rng=random.Random(0))
        game._mine_at = [cell in mines for cell in game._empty.cells()]
        return game

    @property
    def layout(self) -> frozenset[Cell] | None:
        """The mines, or None before the first reveal places them."""
        if self._mine_at is None:
            return None
        return frozenset(self._empty.cell(i) for i, mine in enumerate(self._mine_at) if mine)

    def observe(self) -> Board:
        """The board as the player sees it."""
        return Board(self.width, self.height, tuple(self._states), self.mines)

    def reveal(self, cell: Cell) -> None:
        """Open ``cell``; a zero opens its neighbours too. Opening a mine loses the game."""
        if self.outcome != "playing":
            raise ValueError(f"the game is over ({self.outcome})")
        start = self._empty.index(cell)
        if self._mine_at is None:
            self._mine_at = self._place_mines(start)
        if self._states[start] != UNKNOWN:
            return
        if self._mine_at[start]:
            self._states[start] = EXPLODED
            self._show_mines()
            self.outcome = "lost"
            return
        stack = [start]
        while stack:
            i = stack.pop()
            if self._states[i] != UNKNOWN:
                continue
            around = self._empty.neighbour_indices(i)
            count = sum(self._mine_at[j] for j in around)
            self._states[i] = count
            self._hidden_safe -= 1
            if count == 0:
                stack.extend(j for j in around if self._states[j] == UNKNOWN)
        if self._hidden_safe == 0:
            self.outcome = "won"

    def flag(self, cell: Cell) -> None:
        """Toggle a flag on an unopened cell."""
        i = self._empty.index(cell)
        if self._states[i] in (UNKNOWN, FLAG):
            self._states[i] = FLAG if self._states[i] == UNKNOWN else UNKNOWN

    def _place_mines(self, start: int) -> list[bool]:
        keep_clear = {start}
        if self.first_click == "opening":
            keep_clear.update(self._empty.neighbour_indices(start))
        free = [i for i in range(self.width * self.height) if i not in keep_clear]
        mine_at = [False] * (self.width * self.height)
        for i in self._rng.sample(free, self.mines):
            mine_at[i] = True
        return mine_at

    def _show_mines(self) -> None:
        """After a loss, show every mine and every wrong flag, as desktop games do."""
        assert self._mine_at is not None
        for i, mine in enumerate(self._mine_at):
            if mine and self._states[i] == UNKNOWN:
                self._states[i] = MINE
            elif not mine and self._states[i] == FLAG:
                self._states[i] = WRONG_FLAG
