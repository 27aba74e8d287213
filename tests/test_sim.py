"""The simulator: its rule sets, seeded runs, and the ``autoplay sim`` command."""

from __future__ import annotations

import errno
import json
import multiprocessing.context
import pickle
import random
import re
import time
from functools import partial
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from autoplay.board import Board, Cell
from autoplay.cli import cli
from autoplay.deduction import deduce
from autoplay.errors import (
    BoardCut,
    DisplayLost,
    ImpossibleCount,
    InconsistentBoard,
    UnfittableClues,
)
from autoplay.player import FirstClick
from autoplay.report import wilson_interval
from autoplay.sim import (
    PRESETS,
    KaboomGame,
    SimConfig,
    SimGame,
    game_seed,
    map_seeds,
    play_games,
    play_sim,
)
from autoplay.stats import GameRecord, StatsError, StatsStore
from tests.brute import assert_layout_fits
from tests.processes import run_autoplay


@settings(max_examples=50, deadline=None)
@given(st.integers(3, 10), st.integers(3, 10), st.integers(0, 2**32),
       st.sampled_from(["safe", "opening"]), st.data())
def test_the_simulator_keeps_its_mine_count_and_first_click_rule(
        width: int, height: int, seed: int, first_click: FirstClick,
        data: st.DataObject) -> None:
    mines = data.draw(st.integers(0, width * height - (9 if first_click == "opening" else 1)))
    start = Cell(data.draw(st.integers(0, height - 1)), data.draw(st.integers(0, width - 1)))
    game = SimGame(width, height, mines, rng=random.Random(seed), first_click=first_click)
    game.reveal(start)
    layout = game.layout
    assert layout is not None and len(layout) == mines and start not in layout
    board = game.observe()
    if first_click == "opening":
        assert board[start] == 0 and not set(board.neighbours(start)) & layout
    assert_layout_fits(board, layout)


@settings(max_examples=30, deadline=None)
@given(st.integers(3, 7), st.integers(3, 7), st.integers(0, 2**32),
       st.sampled_from(["safe", "opening"]), st.data())
def test_kaboom_counts_never_contradict_each_other(width: int, height: int, seed: int,
                                                   first_click: FirstClick,
                                                   data: st.DataObject) -> None:
    mines = data.draw(st.integers(0, width * height - (9 if first_click == "opening" else 1)))
    game = KaboomGame(width, height, mines, rng=random.Random(seed), first_click=first_click)
    clicks = data.draw(st.lists(st.tuples(st.integers(0, height - 1),
                                          st.integers(0, width - 1)), min_size=1))
    if first_click == "opening":
        clicks[0] = (min(2, height - 1), min(2, width - 1))
    for row, col in clicks:
        if game.outcome != "playing":
            break
        game.reveal(Cell(row, col))
        layout = game.layout
        assert layout is not None and len(layout) == mines
        assert_layout_fits(game.observe(), layout)
    if first_click == "opening":
        assert game.observe()[Cell(*clicks[0])] == 0


def test_kaboom_mines_an_unproven_click_while_a_safe_cell_exists() -> None:
    punished = 0
    for seed in range(30):
        game = KaboomGame(6, 6, 8, rng=random.Random(seed))
        game.reveal(Cell(0, 0))
        board = game.observe()
        deduction = deduce(board)
        unproven = sorted(set(board.unknown_cells()) - deduction.safe - deduction.mines)
        if game.outcome == "playing" and deduction.safe and unproven:
            game.reveal(unproven[0])
            assert game.outcome == "lost" and unproven[0] in (game.layout or ())
            punished += 1
    assert punished > 5


def test_kaboom_makes_a_guess_safe_when_nothing_is_proven() -> None:
    for seed in range(10):
        game = KaboomGame(3, 1, 1, rng=random.Random(seed))
        game.reveal(Cell(0, 1))
        game.reveal(Cell(0, 2 * (seed % 2)))
        assert game.outcome == "won"


def test_a_config_must_leave_room_for_its_first_click() -> None:
    with pytest.raises(ValueError, match="9 mines do not fit a 3x3 board with a first click "
                                         "that is safe"):
        SimConfig(3, 3, 9)
    assert SimConfig(4, 4, 7, first_click="opening").first_cell == Cell(1, 1)
    assert PRESETS["expert"] == SimConfig(30, 16, 99)


@pytest.mark.parametrize(("size", "first_cell"), [
    ("1x1/0", None), ("2x2/0", None), ("3x1/0", None), ("4x4/12", "0,0"), ("3x2/1", "0,0")])
def test_an_opening_first_click_clears_only_the_cells_around_it(
        size: str, first_cell: str | None, stats_path: Path) -> None:
    """A corner or edge clears fewer than nine cells, so these boards have room."""
    where = [] if first_cell is None else ["--first-cell", first_cell]
    result = CliRunner().invoke(cli, ["sim", "--board", size, "--first-click", "opening",
                                      *where, "--games", "3", "--workers", "1", "--quiet",
                                      "--db", str(stats_path)], prog_name="autoplay")
    assert result.exit_code == 0, result.output
    assert len(_games(stats_path)) == 3


@pytest.mark.parametrize("game", [SimGame, KaboomGame])
def test_a_game_refuses_a_first_click_that_leaves_no_room(game: type[SimGame]) -> None:
    # Kaboom's game, which places its mines its own way, failed an assertion instead.
    played = game(3, 3, 5, rng=random.Random(0), first_click="opening")
    with pytest.raises(ValueError, match="5 mines do not fit a 3x3 board with a first click "
                                         r"at \(1, 1\) that is opening"):
        played.reveal(Cell(1, 1))
    played.reveal(Cell(0, 0))
    assert played.observe()[Cell(0, 0)] == 0


def test_a_given_layout_must_lie_on_the_board() -> None:
    # A mine off the board counted in the game's mines, and the game could not be won.
    with pytest.raises(ValueError, match=r"a 3x2 board has no cell \(2, 0\) for a mine"):
        SimGame.with_layout(3, 2, [Cell(0, 0), Cell(2, 0)])
    game = SimGame.with_layout(3, 2, [Cell(1, 2)])
    game.reveal(Cell(0, 0))  # a zero: it opens all but the column of the mine
    game.reveal(Cell(0, 2))
    assert game.outcome == "won"


def _same_game(a: GameRecord, b: GameRecord) -> bool:
    """The same game, leaving out how long it took."""
    return (a.seed, a.won, a.clicks, a.guesses, a.three_bv) == (
        b.seed, b.won, b.clicks, b.guesses, b.three_bv)


def test_a_game_replays_from_its_seed() -> None:
    config = SimConfig(8, 8, 12, rules="kaboom")
    seed = game_seed(5, 3)
    assert _same_game(play_sim(config, seed), play_sim(config, seed))
    assert not _same_game(play_sim(config, seed), play_sim(config, game_seed(5, 4)))


def test_a_run_deals_the_same_games_with_any_number_of_workers() -> None:
    config = SimConfig(8, 8, 14, rules="kaboom", first_click="opening")
    alone = sorted(play_games(config, 6, seed=2, workers=1), key=lambda g: g.seed or 0)
    shared = sorted(play_games(config, 6, seed=2, workers=2), key=lambda g: g.seed or 0)
    assert [g.seed for g in alone] == sorted(game_seed(2, i) for i in range(6))
    assert all(_same_game(a, b) for a, b in zip(alone, shared, strict=True))


def _played(folder: Path, seed: int) -> int:
    """A game that ends at once, leaving a mark just before its result is sent back."""
    (folder / str(seed)).touch()
    return seed


_ERRORS = [ImpossibleCount("cell (0, 0) shows 9", Board.empty(2, 3)),
           UnfittableClues("row 1's clue does not fit", 4, 5), DisplayLost(":7"),
           BoardCut("the sgt-mines board goes on past ...", "sgt-mines", ("top",)),
           InconsistentBoard("no mine layout fits this board")]


def _failing(error: int, seed: int) -> int:
    raise _ERRORS[error]


@pytest.mark.parametrize("error", range(len(_ERRORS)))
def test_an_error_comes_back_from_a_worker_as_it_was_raised(error: int) -> None:
    # ImpossibleCount and UnfittableClues could not be made again from their pickles, and
    # DisplayLost came back as "the display the display :7 stopped answering ...".
    raised = _ERRORS[error]
    again = pickle.loads(pickle.dumps(raised))
    assert (type(again), str(again), vars(again)) == (type(raised), str(raised), vars(raised))
    if error == 0:  # as the pool sends it
        with pytest.raises(ImpossibleCount, match=re.escape(str(raised))) as caught:
            list(map_seeds(partial(_failing, error), range(2), workers=2))
        assert caught.value.board == raised.board


def test_a_stop_while_waiting_still_yields_the_games_already_back(tmp_path: Path) -> None:
    """Ctrl-C reaches the parent while it waits for the next game: the games the workers
    had finished and sent back are yielded (and so recorded) before the stop goes on."""
    run = map_seeds(partial(_played, tmp_path), range(4), workers=2)
    taken = [next(run)]
    deadline = time.monotonic() + 60
    while len(list(tmp_path.iterdir())) < 4 and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(2)  # for the last results to come back
    with pytest.raises(KeyboardInterrupt):
        taken.append(run.throw(KeyboardInterrupt))  # as the signal does, in the wait
        taken.extend(run)
    assert sorted(taken) == [0, 1, 2, 3]


def test_sim_json_summary(stats_path: Path) -> None:
    result = CliRunner().invoke(cli, [
        "sim", "--board", "6x5/5", "--games", "12", "--seed", "7", "--workers", "1",
        "--db", str(stats_path), "--json"])
    assert result.exit_code == 0, result.output
    summary = json.loads(result.output)
    config = SimConfig(6, 5, 5)
    wins = sum(play_sim(config, game_seed(7, i)).won for i in range(12))
    assert {k: summary[k] for k in ("games", "wins", "rules", "first_click", "first_cell",
                                    "strategy", "seed", "workers", "db", "preset")} == {
        "games": 12, "wins": wins, "rules": "standard", "first_click": "safe",
        "first_cell": [0, 0], "strategy": "lookahead", "seed": 7, "workers": 1,
        "db": str(stats_path), "preset": None}
    assert summary["win_rate"] == wins / 12
    assert summary["ci95"] == list(wilson_interval(wins, 12))
    assert summary["guesses_per_game"] >= 0 and summary["seconds_per_game"] > 0
    with StatsStore(stats_path) as store:
        assert sorted(g.seed or 0 for g in store.games()) == sorted(
            game_seed(7, i) for i in range(12))


def test_a_resumed_run_plays_only_the_games_not_recorded_and_sums_up_all(
        stats_path: Path) -> None:
    """A run stopped after four games (as if by Ctrl-C), then resumed, records each of its
    nine deals once; the same seed's games of another strategy are not taken for its own."""
    base = ["sim", "--board", "6x5/5", "--seed", "11", "--workers", "1", "--quiet",
            "--db", str(stats_path), "--json"]
    other = CliRunner().invoke(cli, [*base, "--games", "9", "--strategy", "lowest-probability"])
    stopped = CliRunner().invoke(cli, [*base, "--games", "4"])
    resumed = CliRunner().invoke(cli, [*base, "--games", "9", "--resume"])
    again = CliRunner().invoke(cli, [*base, "--games", "9", "--resume"])
    assert (other.exit_code, stopped.exit_code, resumed.exit_code, again.exit_code) == (
        0, 0, 0, 0), resumed.output
    wins = sum(play_sim(SimConfig(6, 5, 5), game_seed(11, i)).won for i in range(9))
    for result, played in ((resumed, 5), (again, 0)):
        summary = json.loads(result.output)
        assert (summary["games"], summary["wins"], summary["played"]) == (9, wins, played)
    seeds = [g.seed for g in _games(stats_path) if g.strategy == "lookahead"]
    assert sorted(seeds) == sorted(game_seed(11, i) for i in range(9))


def test_resume_without_a_seed_is_refused(stats_path: Path) -> None:
    result = CliRunner().invoke(cli, ["sim", "--preset", "beginner", "--resume",
                                      "--db", str(stats_path)])
    assert result.exit_code == 2
    assert "--resume finishes a run: give its --seed" in result.stderr
    assert not stats_path.exists()


def test_sim_text_summary(stats_path: Path) -> None:
    result = CliRunner().invoke(cli, [
        "sim", "--preset", "beginner", "--rules", "kaboom", "--first-click", "opening",
        "--games", "3", "--seed", "1", "--workers", "1", "--db", str(stats_path)])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[:2] == [
        "9x9/10 kaboom, first click opening at (3, 3), lookahead guesses, seed 1",
        ("won 3 of 3 games: 100.0% (95% interval 43.9-100.0%), "
         f"{sum(len(g.guesses) for g in _games(stats_path)) / 3:.2f} guesses per game")]
    assert re.fullmatch(r"[\d.]+ ms per game \(median\), [\d.]+ ms mean, [\d.]+ 3BV/s in won games",
                        lines[2]), lines[2]
    assert lines[3:] == [f"recorded in {stats_path}"]
    result = CliRunner().invoke(cli, ["sim", "--preset", "beginner", "--games", "1",
                                      "--workers", "1", "--db", str(stats_path)])
    assert re.fullmatch(r"won [01] of 1 game: .*", result.output.splitlines()[1])


def test_sim_stopped_by_an_error_says_first_how_many_games_it_kept(
        stats_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Only Ctrl-C said so; a statistics file locked mid-run told the error alone.
    record, kept = StatsStore.record, []

    def locked_at_the_fourth(store: StatsStore, game: GameRecord) -> None:
        if len(kept) == 3:
            raise StatsError(f"cannot write to {stats_path}: database is locked")
        record(store, game)
        kept.append(game)

    monkeypatch.setattr(StatsStore, "record", locked_at_the_fourth)
    result = CliRunner().invoke(cli, ["sim", "--preset", "beginner", "--games", "10", "--seed",
                                      "2", "--workers", "1", "--quiet", "--db", str(stats_path)])
    assert result.exit_code == 1
    assert result.stderr == (f"3 games finished, recorded in {stats_path}; "
                             f"--seed 2 --resume plays the rest\n"
                             f"Error: cannot write to {stats_path}: database is locked\n")
    assert len(_games(stats_path)) == 3


def test_sim_plays_the_strategy_and_first_cell_asked_for(stats_path: Path) -> None:
    result = CliRunner().invoke(cli, [
        "sim", "--preset", "intermediate", "--games", "6", "--seed", "4", "--workers", "1",
        "--strategy", "lowest-probability", "--first-cell", "3,2", "--db", str(stats_path),
        "--json"])
    assert result.exit_code == 0, result.output
    summary = json.loads(result.output)
    assert (summary["strategy"], summary["first_cell"]) == ("lowest-probability", [3, 2])
    config = SimConfig(16, 16, 40, strategy="lowest-probability", opening_cell=Cell(3, 2))
    assert [_same_game(g, play_sim(config, g.seed or 0)) for g in _games(stats_path)] == [
        True] * 6
    assert {(g.strategy, g.first_cell) for g in _games(stats_path)} == {
        ("lowest-probability", Cell(3, 2))}


def test_the_same_seed_deals_the_same_layout_to_both_strategies() -> None:
    # The 3BV is the layout's: a paired comparison of the strategies plays the same boards.
    lowest, lookahead = (SimConfig(16, 16, 40, strategy=s)
                         for s in ("lowest-probability", "lookahead"))
    pairs = [(play_sim(lowest, game_seed(9, i)), play_sim(lookahead, game_seed(9, i)))
             for i in range(8)]
    assert all(a.three_bv == b.three_bv for a, b in pairs)
    assert len({a.three_bv for a, _ in pairs}) > 1
    assert {(a.strategy, b.strategy) for a, b in pairs} == {("lowest-probability", "lookahead")}


def _games(path: Path) -> list[GameRecord]:
    with StatsStore(path) as store:
        return list(store.games())


@pytest.mark.parametrize(("arguments", "message"), [
    ([], "Error: give one of --preset and --board"),
    (["--preset", "expert", "--board", "9x9/10"], "Error: give one of --preset and --board"),
    (["--board", "9x9"], ("Error: Invalid value for '--board': expected WxH/M such as "
                          "30x16/99, got '9x9'")),
    (["--board", "3x3/1", "--first-click", "opening"],
     ("Error: Invalid value for '--board': 1 mine does not fit a 3x3 board with a first "
      "click at (1, 1) that is opening; a first click in a corner clears fewer cells "
      "(--first-cell 0,0)")),
    (["--board", "4x4/12", "--first-click", "opening", "--first-cell", "1,1"],
     ("Error: Invalid value for '--first-cell': 12 mines do not fit a 4x4 board with a "
      "first click at (1, 1) that is opening")),
    (["--board", "4x4/13", "--first-click", "opening", "--first-cell", "0,0"],
     ("Error: Invalid value for '--board': 13 mines do not fit a 4x4 board with a first "
      "click that is opening")),
    (["--board", "0x5/0"], "Error: Invalid value for '--board': a 0x5 board has no cells"),
    (["--board", "100000x100000/10"], (
        "Error: Invalid value for '--board': a 100000x100000 board is larger than the "
        "simulator plays (at most 1000 cells a side)")),
    (["--preset", "expert", "--rules", "nice"], ("Error: Invalid value for '--rules': "
                                                 "'nice' is not one of 'standard', 'kaboom'.")),
    (["--preset", "beginner", "--first-cell", "9,0"], (
        "Error: Invalid value for '--first-cell': the first click (9, 0) is outside the "
        "9x9 board")),
    (["--preset", "beginner", "--first-cell", "a1"], (
        "Error: Invalid value for '--first-cell': expected ROW,COL such as 3,3, got 'a1'")),
])
def test_sim_usage_errors(arguments: list[str], message: str, stats_path: Path) -> None:
    result = CliRunner().invoke(cli, ["sim", *arguments, "--db", str(stats_path)],
                                prog_name="autoplay")
    assert result.exit_code == 2
    assert result.output == message + " (see 'autoplay sim --help')\n"
    assert not stats_path.exists()


def test_verbose_sim_logs_each_game_from_every_worker(tmp_path: Path) -> None:
    process = run_autoplay("-v", "sim", "--preset", "beginner", "--games", "4", "--workers",
                           "2", "--seed", "1", "--quiet", "--db", str(tmp_path / "s.sqlite3"))
    _, err = process.communicate(timeout=120)
    ended = [line for line in err.splitlines() if line.startswith("INFO autoplay.player: game")]
    assert process.returncode == 0 and len(ended) == 4


def test_workers_that_cannot_start_are_one_error_line(
        monkeypatch: pytest.MonkeyPatch, stats_path: Path) -> None:
    """A pool whose pipes break as it starts (its resource tracker died, as it did for a
    user without a readable home) raises a broken pipe, which Click alone takes for a
    reader of standard output gone and ends without a word."""
    def broken(*args: object, **kwargs: object) -> None:
        raise BrokenPipeError(errno.EPIPE, "Broken pipe")

    monkeypatch.setattr(multiprocessing.context.SpawnContext, "Pool", broken)
    result = CliRunner().invoke(cli, ["sim", "--preset", "beginner", "--games", "3",
                                      "--workers", "2", "--quiet", "--db", str(stats_path)])
    assert (result.exit_code, result.stdout) == (1, "")
    assert result.stderr == ("Error: cannot start 2 worker processes: Broken pipe "
                             "(--workers 1 plays in this one)\n")
