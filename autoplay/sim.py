"""A Minesweeper game in memory: the simulator every headless measurement plays.

Mines are placed at the first reveal, so the first click obeys the rule set: ``"safe"``
(the clicked cell holds no mine; it may show a number) or ``"opening"`` (the clicked cell and
its neighbours hold none, so it opens an area). :class:`KaboomGame` plays Kaboom's rules
instead, where mines are placed as the player clicks. All randomness comes from the ``rng``
given, so a seed replays a game exactly.

:func:`play_games` plays many seeded games, in parallel, for ``autoplay sim``
(through :func:`map_seeds`, which the tools in ``tools/`` use too).
"""

from __future__ import annotations

import contextlib
import ctypes
import hashlib
import multiprocessing
import multiprocessing.pool
import os
import random
import re
import signal
import sys
import warnings
from collections.abc import Callable, Container, Generator, Iterable, Iterator
from dataclasses import dataclass
from functools import partial
from multiprocessing import resource_tracker
from typing import TypeVar

from autoplay.board import (
    EXPLODED,
    FLAG,
    MINE,
    UNKNOWN,
    WRONG_FLAG,
    Board,
    Cell,
    neighbour_table,
    three_bv,
)
from autoplay.deduction import deduce, find_layout
from autoplay.errors import WorkersFailed, plural
from autoplay.pb import stops_held
from autoplay.player import (
    MAX_SIDE,
    FirstClick,
    GameResult,
    Outcome,
    Rules,
    Strategy,
    first_click_cell,
    play,
)
from autoplay.stats import GameRecord

_T = TypeVar("_T")


def check_fits(width: int, height: int, mines: int, first_click: FirstClick,
               first_cell: Cell | None = None) -> None:
    """Check that a board has room for its mines beside the cells its first click clears:
    the clicked cell, and with an opening its neighbours too, which depend on where it is
    (without ``first_cell``, a corner's, the fewest).

    :raises ValueError: naming the board when it has not, or when it is too large to play.
    """
    if width > MAX_SIDE or height > MAX_SIDE:
        raise ValueError(f"a {width}x{height} board is larger than the simulator plays "
                         f"(at most {MAX_SIDE} cells a side)")
    if width < 1 or height < 1:
        raise ValueError(f"a {width}x{height} board has no cells")
    clear = 1
    if first_click == "opening":
        row, col = (0, 0) if first_cell is None else first_cell
        clear += len(neighbour_table(width, height)[row * width + col])
    if not 0 <= mines <= width * height - clear:
        where = "" if first_cell is None or clear == 1 else f" at {tuple(first_cell)}"
        raise ValueError(f"{plural(mines, 'mine')} {'does' if mines == 1 else 'do'} not fit a "
                         f"{width}x{height} board with a "
                         f"first click{where} that is {first_click}")


class SimGame:
    """A game on a ``width`` x ``height`` grid with ``mines`` mines.

    >>> game = SimGame(9, 9, 10, rng=random.Random(1), first_click="opening")
    >>> game.reveal(Cell(4, 4))
    >>> game.observe()[Cell(4, 4)]
    0
    """

    def __init__(self, width: int, height: int, mines: int, *, rng: random.Random,
                 first_click: FirstClick = "safe") -> None:
        check_fits(width, height, mines, first_click)
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
        """A game whose mines are given rather than drawn: to replay a known board.

        :raises ValueError: when a mine lies off the board.
        """
        mines = set(layout)
        off = sorted(tuple(cell) for cell in mines
                     if not (0 <= cell.row < height and 0 <= cell.col < width))
        if off:
            raise ValueError(f"a {width}x{height} board has no cell {off[0]} for a mine")
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
        if self._states[start] != UNKNOWN:
            return
        if self._mine_at is None:  # the first click's rules may leave the mines no room
            check_fits(self.width, self.height, self.mines, self.first_click, cell)
        self._mine_at = self._choose_layout(start)
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

    def _choose_layout(self, start: int) -> list[bool]:
        """The mines in force for the reveal of flat index ``start``: drawn at the first."""
        if self._mine_at is not None:
            return self._mine_at
        keep_clear = set(self._first_click_clear(start))
        free = [i for i in range(self.width * self.height) if i not in keep_clear]
        mine_at = [False] * (self.width * self.height)
        for i in self._rng.sample(free, self.mines):
            mine_at[i] = True
        return mine_at

    def _first_click_clear(self, start: int) -> list[int]:
        """The cells the rules keep clear of mines when ``start`` is the first reveal."""
        if self.first_click == "opening":
            return [start, *self._empty.neighbour_indices(start)]
        return [start]

    def _show_mines(self) -> None:
        """After a loss, show every mine and every wrong flag, as desktop games do."""
        assert self._mine_at is not None
        for i, mine in enumerate(self._mine_at):
            if mine and self._states[i] == UNKNOWN:
                self._states[i] = MINE
            elif not mine and self._states[i] == FLAG:
                self._states[i] = WRONG_FLAG


class KaboomGame(SimGame):
    """Kaboom's cruel-but-fair rules: no mine is placed until a cell is clicked.

    At each reveal the game looks at what the player could know. A click on a cell that
    could hold a mine, while some cell is proven safe, puts a mine under it; when no cell is
    proven safe, a cell that can be safe is made safe. The counts shown come from a random
    layout that fits every count shown so far and that verdict, so they never contradict
    each other. A player who never clicks an unproven cell while a proven one exists wins
    every game.

    >>> game = KaboomGame(3, 1, 1, rng=random.Random(0))
    >>> game.reveal(Cell(0, 1))
    >>> game.observe()
    Board.parse('mines: 1\\n.1.')
    >>> game.reveal(Cell(0, 0))  # a guess, but nothing was proven safe: it is made safe
    >>> game.outcome, sorted(game.layout or ())
    ('won', [Cell(row=0, col=2)])
    """

    def _choose_layout(self, start: int) -> list[bool]:
        board = self.observe().without_flags()
        cell = board.cell(start)
        deduction = deduce(board, quick=True)
        if cell not in deduction.safe and not deduction.is_complete():
            deduction = deduce(board)
        if cell in deduction.mines or (deduction.has_safe() and cell not in deduction.safe):
            layout = find_layout(board, mines=[cell], rng=self._rng)
        else:
            clear = [start] if self._mine_at is not None else self._first_click_clear(start)
            layout = find_layout(board, safe=[board.cell(i) for i in clear], rng=self._rng)
        assert layout is not None, "the deduction said this cell can take this value"
        return [c in layout for c in board.cells()]


@dataclass(frozen=True, slots=True)
class SimConfig:
    """What a simulated game is: its size, its mines and its rules."""

    width: int
    height: int
    mines: int
    rules: Rules = "standard"
    first_click: FirstClick = "safe"
    strategy: Strategy = "lookahead"
    """How the player guesses (see :func:`~autoplay.player.play`)."""
    opening_cell: Cell | None = None
    """Where the player opens the game, when not where the rules say
    (:func:`~autoplay.player.first_click_cell`): to measure other first clicks."""

    def __post_init__(self) -> None:
        if self.opening_cell is not None and not (
                0 <= self.opening_cell.row < self.height
                and 0 <= self.opening_cell.col < self.width):
            raise ValueError(f"the first click {tuple(self.opening_cell)} is outside the "
                             f"{self.width}x{self.height} board")
        check_fits(self.width, self.height, self.mines, self.first_click, self.first_cell)

    @property
    def first_cell(self) -> Cell:
        """Where the player opens the game."""
        if self.opening_cell is not None:
            return self.opening_cell
        return first_click_cell(self.width, self.height, self.first_click)

    def new_game(self, rng: random.Random) -> SimGame:
        """A fresh game under these rules.

        :raises ValueError: when the mines do not fit the board with its first click.
        """
        game = KaboomGame if self.rules == "kaboom" else SimGame
        return game(self.width, self.height, self.mines, rng=rng, first_click=self.first_click)


PRESETS = {
    "beginner": SimConfig(9, 9, 10),
    "intermediate": SimConfig(16, 16, 40),
    "expert": SimConfig(30, 16, 99),
}
"""The classic difficulty levels (rules and first click are set apart)."""


# ASCII digits only, as int() takes full-width ones too; and at most 18 (it takes 4300).
_BOARD_SIZE = re.compile(r"([0-9]{1,18})x([0-9]{1,18})/([0-9]{1,18})")


def parse_board(text: str) -> tuple[int, int, int] | None:
    """The width, height and mines of a board written ``WxH/M``, or None.

    >>> parse_board("30x16/99"), parse_board("30x16")
    ((30, 16, 99), None)
    """
    match = _BOARD_SIZE.fullmatch(text)
    return None if match is None else (int(match[1]), int(match[2]), int(match[3]))


def game_seed(seed: int, index: int) -> int:
    """The seed of game ``index`` of a run seeded ``seed``.

    A hash of both, so it depends on nothing else (not on the number of workers) and
    replays the game alone; 63 bits, so SQLite stores it as an integer.

    >>> game_seed(1, 0) == game_seed(1, 0) != game_seed(1, 1)
    True
    """
    digest = hashlib.sha256(f"{seed}/{index}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


def deal(config: SimConfig, seed: int) -> tuple[SimGame, random.Random]:
    """The game dealt from ``seed``, and the random stream its player breaks ties with."""
    rng = random.Random(seed)
    return config.new_game(random.Random(rng.getrandbits(64))), random.Random(rng.getrandbits(64))


def play_sim(config: SimConfig, seed: int) -> GameRecord:
    """Play one simulated game from its seed, and describe it for the statistics store."""
    game, rng = deal(config, seed)
    result = play(game, rng=rng, first_cell=config.first_cell, strategy=config.strategy)
    return game_record(config, seed, game, result)


def game_record(config: SimConfig, seed: int, game: SimGame, result: GameResult) -> GameRecord:
    """The statistics store's record of ``game``, dealt from ``seed`` and played to
    ``result``."""
    layout = game.layout
    return GameRecord.of(result, source="simulator", width=config.width, height=config.height,
                         mines=config.mines, rules=config.rules,
                         first_click=config.first_click, seed=seed,
                         three_bv=None if layout is None else three_bv(
                             config.width, config.height, layout))


def play_games(config: SimConfig, games: int, *, seed: int, workers: int,
               setup: Callable[[], None] | None = None,
               skip: Container[int | None] = ()) -> Generator[GameRecord, None, None]:
    """Play ``games`` games, game i from ``game_seed(seed, i)`` unless that seed is in
    ``skip`` (played before), yielding each as it ends (see :func:`map_seeds` for
    ``workers`` and ``setup``); each is the same game whatever the number of workers."""
    seeds = (s for i in range(games) if (s := game_seed(seed, i)) not in skip)
    yield from map_seeds(partial(play_sim, config), seeds, workers=workers, setup=setup)


def map_seeds(play_one: Callable[[int], _T], seeds: Iterable[int], *, workers: int,
              setup: Callable[[], None] | None = None) -> Generator[_T, None, None]:
    """``play_one`` (picklable) of each seed, yielded as each ends.

    With several workers, seeds run in fresh processes and come back in the order they
    finish. ``setup`` (picklable) runs first in each of those processes, or here with one
    worker: ``tools/tune.py`` changes the player's constants with it. Stopped (Ctrl-C)
    while it waits for a game, it yields the games already back before the stop goes on,
    so that none a worker finished is lost.
    """
    if workers == 1:
        if setup is not None:
            setup()
        yield from map(play_one, seeds)
        return
    # Fresh processes rather than forks: the parent may already run Z3 or a progress thread.
    context = multiprocessing.get_context("spawn")
    with contextlib.ExitStack() as stack:
        try:
            # the warnings of a resource tracker that dies as it starts are told by the
            # error below, in one line; those of a pool that starts, as they came
            with warnings.catch_warnings(record=True) as warned, _starting_workers():
                warnings.simplefilter("always")
                pool = stack.enter_context(context.Pool(
                    workers, initializer=_start_worker, initargs=(os.getpid(), setup)))
        except OSError as error:  # Click would take a broken pipe for a reader gone
            raise WorkersFailed(f"cannot start {workers} worker processes: "
                                f"{error.strerror or error} (--workers 1 plays in this one)"
                                ) from error
        for warning in warned:
            warnings.warn_explicit(warning.message, warning.category, warning.filename,
                                   warning.lineno)
        results = pool.imap_unordered(play_one, seeds)
        try:
            yield from _watched(results, pool)
        except KeyboardInterrupt:  # a stop while waiting: the games already back come too
            yield from _arrived(results)
            raise


def _watched(results: multiprocessing.pool.IMapIterator[_T],
             pool: multiprocessing.pool.Pool) -> Iterator[_T]:
    """The results as they come back, until a worker is found dead (killed, or by the
    kernel out of memory): its game never comes back, and the pool, which starts another
    worker in its place, would wait for it for ever.

    :raises WorkersFailed: once one has died.
    """
    workers = set(pool._pool)  # type: ignore[attr-defined]  # the pool's own processes
    while True:
        try:
            yield results.next(timeout=_WATCH_SECONDS)
        except StopIteration:
            return
        except multiprocessing.TimeoutError:
            pass
        workers.update(pool._pool)  # type: ignore[attr-defined]  # those it started since
        dead = next((worker for worker in workers if worker.exitcode is not None), None)
        if dead is not None:
            _stop_broken(pool)
            raise WorkersFailed(f"a worker process ended (exit code {dead.exitcode}: killed?) "
                                f"with its game unfinished: stopped")


def _stop_broken(pool: multiprocessing.pool.Pool) -> None:
    """Make a pool one of whose workers died ready to be stopped as usual.

    A worker holds a lock of the pool's queues while it takes its next game, or sends a
    result back; and stopping the pool takes both, so it would wait for ever for a dead
    holder. The pool is kept from starting workers in place of the dead (one started now
    could take the lock as it is freed, and wait with it for a game that never comes), every
    worker is killed (the run stops, as it would have killed them), and then both locks
    are freed: whoever held them is dead."""
    handler = pool._worker_handler  # type: ignore[attr-defined]
    handler._state = multiprocessing.pool.TERMINATE
    pool._change_notifier.put(None)  # type: ignore[attr-defined]  # wakes it to see that
    handler.join()
    for worker in pool._pool:  # type: ignore[attr-defined]
        worker.kill()
        worker.join()
    for lock in (pool._inqueue._rlock, pool._outqueue._wlock):  # type: ignore[attr-defined]
        lock.acquire(block=False)  # held or not, it ends free
        lock.release()


_WATCH_SECONDS = 1.0
"""How long :func:`_watched` waits for a game before it looks for a dead worker again (it
looks after each game too)."""


@contextlib.contextmanager
def _starting_workers() -> Iterator[None]:
    """Within this block, a stop signal waits for the block's end (:func:`stops_held`), and
    the processes started in it block Ctrl-C for good.

    A terminal's Ctrl-C reaches a worker still starting (importing autoplay, in the parent's
    group), and would end it with a traceback; so would a stop that ends the parent while
    it makes the pool, before it has sent each worker its orders. Ctrl-C is blocked here,
    and the mask passes to the workers: the pool's resource tracker is started first,
    since starting, it unblocks Ctrl-C."""
    resource_tracker.ensure_running()
    with stops_held():
        mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        try:
            yield
        finally:  # unblocked before a held Ctrl-C is raised again, on this thread
            signal.pthread_sigmask(signal.SIG_SETMASK, mask)


def _arrived(results: multiprocessing.pool.IMapIterator[_T]) -> Iterator[_T]:
    """The results that have come back from the workers and are not yet taken."""
    while True:
        try:
            yield results.next(timeout=0)
        except (multiprocessing.TimeoutError, StopIteration):
            return


_PR_SET_PDEATHSIG = 1
"""Linux's ``prctl`` option: the signal a process gets when its parent dies."""


def _start_worker(parent: int, setup: Callable[[], None] | None) -> None:
    """Leave SIGTERM to the parent, which stops the pool, then run ``setup`` (Ctrl-C is
    blocked from the worker's start, see :func:`_starting_workers`).

    The worker leaves the parent's process group, which ``kill -- -PGID`` signals as a
    whole: a worker killed by SIGTERM while waiting for its next game holds the pool's queue
    lock, and stopping the pool then hangs. (One still starting holds no lock, and dies
    quietly.) Out of the group, it asks Linux for SIGTERM when the parent dies (killed, or a
    tool with no handler of its own stopped): else it would finish its game, then print a
    traceback on the broken queue."""
    os.setpgrp()
    if sys.platform == "linux":
        ctypes.CDLL(None).prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)
        if os.getppid() != parent:  # it died before the request
            os._exit(1)
    if setup is not None:
        setup()
