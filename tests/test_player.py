"""The player's invariants, checked on real simulated games by a game that watches it."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from autoplay.board import FLAG, UNKNOWN, Board, Cell
from autoplay.deduction import deduce
from autoplay.player import (
    STRATEGIES,
    FirstClick,
    GameResult,
    Outcome,
    Strategy,
    first_click_cell,
    play,
)
from autoplay.sim import KaboomGame, SimGame, check_fits
from tools.unknown_count import Uncounted


class WatchedGame:
    """A :class:`~autoplay.player.Game` that passes every move on to a real game, after
    checking it against a complete deduction of the board the player could see."""

    def __init__(self, game: SimGame) -> None:
        self.game = game
        self.reveals: list[Cell] = []
        self.unproven: list[Cell] = []
        self.flags: list[Cell] = []

    @property
    def outcome(self) -> Outcome:
        return self.game.outcome

    def observe(self) -> Board:
        return self.game.observe()

    def reveal(self, cell: Cell) -> None:
        board = self.game.observe()
        assert board[cell] == UNKNOWN, f"{cell} is not an unopened cell"
        if any(s >= 0 for s in board.states):
            safe = deduce(board).safe
            assert not safe or cell in safe, f"{cell} clicked while {sorted(safe)} are proven"
            if cell not in safe:
                self.unproven.append(cell)
        self.reveals.append(cell)
        self.game.reveal(cell)

    def flag(self, cell: Cell) -> None:
        assert cell in deduce(self.game.observe()).mines, f"{cell} flagged unproven"
        self.flags.append(cell)
        self.game.flag(cell)


@st.composite
def configurations(draw: st.DrawFn) -> tuple[int, int, int, FirstClick]:
    """A small board, a mine count that fits it, and a first-click rule."""
    first_click: FirstClick = draw(st.sampled_from(["safe", "opening"]))
    width, height = draw(st.integers(3, 8)), draw(st.integers(3, 8))
    spare = 9 if first_click == "opening" else 1
    mines = draw(st.integers(0, width * height - spare))
    check_fits(width, height, mines, first_click)
    return width, height, mines, first_click


def _play(game: SimGame, seed: int, *, flag_mines: bool,
          strategy: Strategy = "lookahead") -> tuple[WatchedGame, GameResult]:
    watched = WatchedGame(game)
    first = first_click_cell(game.width, game.height, game.first_click)
    return watched, play(watched, rng=random.Random(seed), first_cell=first,
                         flag_mines=flag_mines, strategy=strategy)


@settings(max_examples=60, deadline=None)
@given(configurations(), st.integers(0, 2**32), st.booleans(), st.sampled_from(STRATEGIES))
def test_the_player_keeps_its_invariants(configuration: tuple[int, int, int, FirstClick],
                                         seed: int, flag_mines: bool,
                                         strategy: Strategy) -> None:
    width, height, mines, first_click = configuration
    game = SimGame(width, height, mines, rng=random.Random(seed), first_click=first_click)
    watched, result = _play(game, seed, flag_mines=flag_mines, strategy=strategy)
    assert result.strategy == strategy
    assert result.won == (game.outcome == "won") and game.outcome != "playing"
    assert watched.reveals[0] == result.first_cell == first_click_cell(width, height,
                                                                        first_click)
    assert [g.cell for g in result.guesses] == watched.unproven
    assert all(0 < g.probability < 1 and g.exact for g in result.guesses)
    assert result.clicks == len(watched.reveals) + len(watched.flags)
    assert watched.flags == [] or flag_mines
    assert result.board == game.observe() and result.seconds > 0
    layout = game.layout
    assert layout is not None and len(layout) == mines
    if result.won:
        assert set(result.board.unknown_cells()) | set(result.board.flags()) == layout
    else:
        assert watched.reveals[-1] in layout and watched.reveals[-1] == result.guesses[-1].cell


@settings(max_examples=40, deadline=None)
@given(configurations(), st.integers(0, 2**32))
def test_kaboom_is_won_every_time(configuration: tuple[int, int, int, FirstClick],
                                  seed: int) -> None:
    width, height, mines, first_click = configuration
    game = KaboomGame(width, height, mines, rng=random.Random(seed), first_click=first_click)
    watched, result = _play(game, seed, flag_mines=seed % 2 == 0)
    assert result.won, f"lost Kaboom after {watched.reveals}"
    assert set(result.board.unknown_cells()) | set(result.board.flags()) == game.layout


def test_flags_are_placed_on_proven_mines_only_when_asked() -> None:
    game = SimGame(9, 9, 10, rng=random.Random(3))
    watched, result = _play(game, 3, flag_mines=True)
    assert watched.flags and set(watched.flags) <= (game.layout or set())
    assert all(result.board[cell] == FLAG for cell in watched.flags)


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_game_replays_from_its_seeds(strategy: Strategy) -> None:
    def one() -> tuple[bool, list[Cell]]:
        game = SimGame(16, 16, 40, rng=random.Random(8))
        watched, result = _play(game, 8, flag_mines=False, strategy=strategy)
        return result.won, watched.reveals

    assert one() == one()


def test_a_game_already_under_way_is_not_opened_again() -> None:
    game = SimGame(9, 9, 10, rng=random.Random(4), first_click="opening")
    game.reveal(Cell(4, 4))
    result = play(game, rng=random.Random(4), first_cell=Cell(0, 0))
    assert result.first_cell is None


@pytest.mark.parametrize(("width", "height", "rule", "cell"), [
    (30, 16, "safe", Cell(0, 0)), (30, 16, "opening", Cell(3, 3)),
    (9, 9, "opening", Cell(3, 3)), (3, 3, "opening", Cell(1, 1)), (2, 5, "opening", Cell(2, 0)),
])
def test_the_first_click_follows_the_rules(width: int, height: int, rule: FirstClick,
                                           cell: Cell) -> None:
    assert first_click_cell(width, height, rule) == cell


def test_not_told_the_mine_count_of_a_classic_board_the_player_guesses_as_if_told() -> None:
    # Its guesses take the 9x9 board's usual 10 mines. Taking a cell touching no count as
    # a mine in half the layouts instead, it opened a neighbour of a first click showing 1.
    corner = Cell(0, 0)
    for seed in range(16):
        told = SimGame(9, 9, 10, rng=random.Random(seed))
        blind = SimGame(9, 9, 10, rng=random.Random(seed))
        expected = play(told, rng=random.Random(seed), first_cell=corner)
        result = play(Uncounted(blind), rng=random.Random(seed), first_cell=corner)
        assert [g.cell for g in result.guesses] == [g.cell for g in expected.guesses]
        assert result.won == expected.won
