"""Summaries, intervals and the plot, and the ``autoplay stats`` command."""

from __future__ import annotations

import dataclasses
import errno
import functools
import itertools
import json
import math
import os
import random
import statistics
from pathlib import Path

import cv2
import numpy as np
import pytest
from click.testing import CliRunner
from matplotlib.figure import Figure

from autoplay.board import Cell
from autoplay.cli import cli
from autoplay.errors import AutoplayError
from autoplay.player import FirstClick, Strategy, play
from autoplay.report import (
    MIN_ADJUSTED,
    Comparison,
    Configuration,
    Estimate,
    compare,
    first_plays,
    luck,
    odds_adjusted,
    plot,
    summarize,
    wilson_interval,
)
from autoplay.sim import SimConfig, SimGame, game_record
from autoplay.stats import GameRecord, StatsStore
from tests.processes import run_in_terminal


@pytest.mark.parametrize(("wins", "games", "low", "high"), [
    # Reference values from the closed form of Wilson (1927), to 4 places.
    (0, 10, 0.0, 0.2775), (10, 10, 0.7225, 1.0), (5, 10, 0.2366, 0.7634),
    (380, 1000, 0.3504, 0.4105), (1, 3, 0.0615, 0.7923),
])
def test_wilson_interval(wins: int, games: int, low: float, high: float) -> None:
    assert wilson_interval(wins, games) == pytest.approx((low, high), abs=5e-5)


def test_wilson_interval_needs_a_trial() -> None:
    with pytest.raises(ValueError, match="a rate needs at least one trial, got 0"):
        wilson_interval(0, 0)


_SEEDS = itertools.count()


def _game(won: bool, *, rules: str = "standard", seconds: float = 0.1, guesses: int = 1,
          width: int = 9) -> GameRecord:
    """A game of a seed of its own."""
    return GameRecord("simulator", width, 9, 10, rules, "safe", Cell(0, 0), next(_SEEDS), won,
                      20, (0.25,) * guesses, seconds, 12)


def test_summaries_per_configuration() -> None:
    games = [_game(True, rules="kaboom"), _game(True, seconds=0.3, guesses=0),
             _game(False, seconds=0.2, guesses=2), _game(True, seconds=0.4, guesses=3),
             _game(True, width=16)]
    standard, wide, kaboom = summarize(games)
    assert (str(standard.configuration), str(wide.configuration), str(kaboom.configuration)) \
        == ("9x9/10 standard, first click safe at (0, 0), lookahead guesses",
            "16x9/10 standard, first click safe at (0, 0), lookahead guesses",
            "9x9/10 kaboom, first click safe at (0, 0), lookahead guesses")
    assert (standard.games, standard.wins, standard.guesses_per_game) == (3, 2, 5 / 3)
    assert standard.seconds_per_game == pytest.approx(0.3)
    assert standard.median_seconds == pytest.approx(0.3)
    assert standard.three_bv_per_second == pytest.approx((12 / 0.3 + 12 / 0.4) / 2)
    assert standard.ci95 == wilson_interval(2, 3)
    assert standard.configuration == Configuration.of(games[1])


def test_strategies_are_compared_on_the_seeds_both_played(stats_path: Path) -> None:
    def game(seed: int, won: bool, strategy: str) -> GameRecord:
        return dataclasses.replace(_game(won), seed=seed, strategy=strategy)

    new = [game(s, won, "lookahead") for s, won in enumerate([1, 1, 1, 0, 1, 0, 1])]
    old = [game(s, won, "lowest-probability") for s, won in enumerate([1, 0, 0, 0, 1, 1])]
    (comparison,) = compare([*new, *old, dataclasses.replace(_game(True), seed=0)])
    assert (comparison.strategies, comparison.games, comparison.wins, comparison.only) == (
        ("lookahead", "lowest-probability"), 6, (4, 3), (2, 1))
    assert comparison.difference == pytest.approx(1 / 6)
    low, high = comparison.ci95
    assert -1 < low < 1 / 6 < high < 1
    _record(stats_path, [*new, *old])
    result = CliRunner().invoke(cli, ["stats", "--db", str(stats_path), "--json"])
    assert json.loads(result.output)["comparisons"] == [comparison.as_dict()]
    assert comparison.as_dict()["game"] == "9x9/10 standard, first click safe at (0, 0)"
    result = CliRunner().invoke(cli, ["stats", "--db", str(stats_path)])
    assert "strategies on the same games" in result.output and "+16.7" in result.output


def _record(path: Path, games: list[GameRecord]) -> None:
    with StatsStore(path) as store:
        for game in games:
            store.record(game)


def test_stats_json(stats_path: Path) -> None:
    _record(stats_path, [_game(True), _game(False), _game(True, rules="kaboom")])
    result = CliRunner().invoke(cli, ["stats", "--db", str(stats_path), "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert report["db"] == str(stats_path)
    assert [(c["rules"], c["games"], c["wins"], c["ci95"]) for c in report["configurations"]] \
        == [("standard", 2, 1, list(wilson_interval(1, 2))),
            ("kaboom", 1, 1, list(wilson_interval(1, 1)))]


def test_a_deal_replayed_into_the_same_file_counts_once(stats_path: Path) -> None:
    # Counted twice, the same 20 games narrowed the interval as 40 would.
    games = [_game(won) for won in [True] * 15 + [False] * 5]
    replays = [dataclasses.replace(game, won=True) for game in games[:8]]
    elsewhere = dataclasses.replace(games[0], rules="kaboom")  # another configuration
    assert first_plays([*games, *replays, elsewhere]) == ([*games, elsewhere], 8)
    _record(stats_path, [*games, *replays])
    report = json.loads(CliRunner().invoke(
        cli, ["stats", "--db", str(stats_path), "--json"]).output)
    assert report["replays"] == 8
    assert [(c["games"], c["wins"]) for c in report["configurations"]] == [(20, 15)]
    table = CliRunner().invoke(cli, ["stats", "--db", str(stats_path)]).output
    assert "28 games recorded" in table
    assert "8 games replayed a seed already played in the same configuration" in table


def test_stats_table_and_plot(stats_path: Path, tmp_path: Path) -> None:
    _record(stats_path, [_game(True), _game(False), _game(True, rules="kaboom")])
    image = tmp_path / "stats.png"
    result = CliRunner().invoke(cli, ["stats", "--db", str(stats_path), "--plot", str(image)])
    assert result.exit_code == 0, result.output
    rows = [line.split("│")[1:-1] for line in result.output.splitlines() if "│" in line]
    assert [[cell.strip() for cell in row[:7]] for row in rows] == [
        ["simulator", "9x9/10", "standard", "safe at (0, 0)", "lookahead", "2", "50.0%"],
        ["simulator", "9x9/10", "kaboom", "safe at (0, 0)", "lookahead", "1", "100.0%"]]
    assert result.output.endswith(f"plot saved to {image}\n")
    assert image.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_a_plot_the_disk_cannot_hold_leaves_no_file(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    # A disk that filled as the picture was written left an empty file of its name.
    def fill_up(figure: Figure, path: Path, **options: object) -> None:
        Path(path).write_bytes(b"\x89PNG")
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(Figure, "savefig", fill_up)
    image = tmp_path / "stats.png"
    with pytest.raises(AutoplayError, match=f"cannot write {image}: No space left on device"):
        plot([_game(True)], image)
    assert not image.exists()
    image.write_bytes(b"the user's own")  # a file there before is written over, not removed
    with pytest.raises(AutoplayError):
        plot([_game(True)], image)
    assert image.read_bytes() == b"\x89PNG"


def test_a_single_game_is_drawn_in_the_colour_of_its_result(tmp_path: Path) -> None:
    """A box of one game is a black line, won or lost alike: it gets a dot of its colour
    in each panel of lengths (beside the legend's patch, the only lost colour a won game's
    plot shows)."""
    def lost_pixels(won: bool) -> int:
        path = tmp_path / f"{won}.png"
        plot([_game(won)], path)
        image = cv2.imread(str(path))
        return int(np.all(np.abs(image.astype(int) - (81, 111, 231)) < 20, axis=2).sum())

    assert lost_pixels(False) > lost_pixels(True) + 2 * 20  # two dots, each 20 pixels or more


def test_stats_fits_the_terminal(stats_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A terminal too narrow for the tables gets their rows in words, not squeezed columns."""
    games = [_game(True), _game(False), _game(True, rules="kaboom")]
    _record(stats_path, [*games, dataclasses.replace(games[0], strategy="lowest-probability"),
                         dataclasses.replace(games[1], strategy="lowest-probability")])
    # Named from its folder: a temporary path can be longer than the narrow terminal.
    monkeypatch.chdir(stats_path.parent)
    narrow, wide = (run_in_terminal("stats", "--db", stats_path.name, columns=columns)
                    for columns in (80, 200))
    assert max(map(len, narrow.splitlines())) <= 80
    paragraphs = [" ".join(line.strip() for line in paragraph.splitlines())
                  for paragraph in narrow.split("\n\n")]
    assert paragraphs == [
        f"5 games recorded in {stats_path.name}",
        ("9x9/10 standard, first click safe at (0, 0), lookahead guesses "
        "won 1 of 2 games: 50.0% (95% interval 9.5-90.5%), 1.00 guesses per game "
        "100.0 ms per game (median), 100.0 ms mean, 120 3BV/s in won games"),
        ("9x9/10 standard, first click safe at (0, 0), lowest-probability guesses "
        "won 1 of 2 games: 50.0% (95% interval 9.5-90.5%), 1.00 guesses per game "
        "100.0 ms per game (median), 100.0 ms mean, 120 3BV/s in won games"),
        ("9x9/10 kaboom, first click safe at (0, 0), lookahead guesses "
        "won 1 of 1 game: 100.0% (95% interval 20.7-100.0%), 1.00 guesses per game "
        "100.0 ms per game (median), 100.0 ms mean, 120 3BV/s in won games"),
        "strategies on the same games (same seeds)",
        ("9x9/10 standard, first click safe at (0, 0), 2 games: lookahead won 50.0%, "
        "lowest-probability 50.0%, a difference of +0.0 points (95% interval -57.3 to "
        "+57.3); 0 won by lookahead alone, 0 by lowest-probability alone"), ""]
    assert max(map(len, wide.splitlines())) <= 200
    assert [line.split("│")[1:6] for line in wide.splitlines() if "│ sim" in line] == [
        [" simulator ", " 9x9/10 ", " standard ", " safe at (0, 0) ", " lookahead          "],
        [" simulator ", " 9x9/10 ", " standard ", " safe at (0, 0) ", " lowest-probability "],
        [" simulator ", " 9x9/10 ", " kaboom   ", " safe at (0, 0) ", " lookahead          "]]


def test_stats_of_an_empty_file(stats_path: Path) -> None:
    StatsStore(stats_path).close()
    result = CliRunner().invoke(cli, ["stats", "--db", str(stats_path)])
    assert (result.exit_code, result.output) == (0, f"no games recorded in {stats_path}\n")
    result = CliRunner().invoke(cli, ["stats", "--db", str(stats_path), "--plot", "x.png"])
    assert (result.exit_code, result.output) == (
        1, f"Error: no games recorded in {stats_path}: nothing to plot\n")


def test_stats_without_a_file(stats_path: Path) -> None:
    result = CliRunner().invoke(cli, ["stats", "--db", str(stats_path)])
    assert (result.exit_code, result.output) == (
        1, f"Error: no statistics file at {stats_path}: play some games first\n")
    assert not stats_path.exists()


def test_stats_of_a_file_that_is_not_one(stats_path: Path) -> None:
    stats_path.write_text("hello " * 50)
    result = CliRunner().invoke(cli, ["stats", "--db", str(stats_path)])
    assert (result.exit_code, result.output) == (
        1, f"Error: {stats_path} is not a statistics file: file is not a database\n")


def _paired(both: int, first: int, second: int, neither: int) -> Comparison:
    return Comparison(Configuration("simulator", 9, 9, 10, "standard", "safe", Cell(0, 0),
                                    "lookahead"), ("lookahead", "lowest-probability"),
                      both + first + second + neither, (both + first, both + second),
                      (first, second))


def test_the_paired_interval_is_newcombes() -> None:
    """His method 10 on the first example of his 1998 paper: 36, 12, 2 and 0 pairs."""
    low, high = _paired(36, 12, 2, 0).ci95
    assert (round(low, 4), round(high, 4)) == (0.0569, 0.3404)
    # ad - bc = 4 is within his correction of n/2 = 4: the pairing then counts for nothing,
    # and the interval joins the two rates' Wilson intervals as for independent samples.
    low, high = _paired(1, 1, 1, 5).ci95
    below, above = wilson_interval(2, 8)
    half = math.hypot(2 / 8 - below, above - 2 / 8)
    assert (low, high) == pytest.approx((-half, half))


def test_the_paired_interval_does_not_shrink_to_a_point() -> None:
    """Twenty games won alike by both strategies do not prove them equal to the point."""
    low, high = _paired(18, 0, 0, 2).ci95
    assert low == pytest.approx(-high) and 0.1 < high < 0.25
    low, high = _paired(0, 3, 0, 0).ci95  # three games, each won by the first alone
    assert 0 < low < 0.5 and high == pytest.approx(1.0)


def test_the_paired_interval_turns_round_with_the_strategies() -> None:
    low, high = _paired(14, 5, 0, 22).ci95
    assert _paired(14, 0, 5, 22).ci95 == pytest.approx((-high, -low))
    assert 0 < low < 5 / 41 < high


@pytest.mark.parametrize(("shares", "games"), [
    ((0.88, 0.02, 0.0, 0.10), 50),  # few won by one alone: the normal approximation held 63%
    ((0.85, 0.03, 0.01, 0.11), 200),
    ((0.45, 0.10, 0.05, 0.40), 50),
    ((0.40, 0.05, 0.05, 0.50), 30),
])
def test_the_paired_interval_holds_the_true_difference_95_times_in_100(
        shares: tuple[float, float, float, float], games: int) -> None:
    rng = random.Random(1)
    truth = shares[1] - shares[2]
    held = 0
    for _ in range(2000):
        cells = [0, 0, 0, 0]
        for cell in rng.choices(range(4), shares, k=games):
            cells[cell] += 1
        low, high = _paired(*cells).ci95
        held += low <= truth <= high
    assert held >= 0.93 * 2000


@functools.cache
def _every_deal(width: int, height: int, mines: int, first_click: FirstClick,
                strategy: Strategy) -> tuple[GameRecord, ...]:
    """The games of every layout the rules can deal, each played with the same coin and
    numbered as its seed: each deal once is the uniform deal exactly."""
    config = SimConfig(width, height, mines, "standard", first_click, strategy, None)
    first = config.first_cell
    kept = {first} if first_click == "safe" else {
        Cell(first.row + a, first.col + b) for a in (-1, 0, 1) for b in (-1, 0, 1)}
    cells = [Cell(r, c) for r in range(height) for c in range(width) if Cell(r, c) not in kept]
    games = []
    for index, layout in enumerate(itertools.combinations(cells, mines)):
        game = SimGame.with_layout(width, height, layout)
        result = play(game, rng=random.Random(1), first_cell=first, strategy=strategy)
        games.append(game_record(config, index, game, result))
    return tuple(games)


@pytest.mark.parametrize(("width", "height", "mines", "first_click", "strategy"), [
    (4, 4, 3, "safe", "lookahead"), (4, 4, 4, "safe", "lowest-probability"),
    (5, 5, 3, "opening", "lookahead")])
def test_over_every_deal_the_luck_of_the_guesses_is_nothing(
        width: int, height: int, mines: int, first_click: FirstClick,
        strategy: Strategy) -> None:
    """The odds-adjusted rate's premise, checked exactly: it fails if a guess's odds are not
    the chance it hits a mine, belong to another cell, or miss the fatal guess, or if the
    first click counts as one. The correction then takes nothing off the games won."""
    games = list(_every_deal(width, height, mines, first_click, strategy))
    won = sum(game.won for game in games) / len(games)
    assert 0.5 < won < 0.95 and sum(len(game.guesses) for game in games) > len(games) / 8
    assert statistics.fmean(map(luck, games)) == pytest.approx(0, abs=1e-12)
    (summary,) = summarize(games)
    assert summary.odds_adjusted is not None
    assert summary.odds_adjusted.value == pytest.approx(won, abs=1e-12)


def test_over_every_deal_the_odds_adjusted_difference_is_the_true_one() -> None:
    both = [*_every_deal(4, 4, 3, "safe", "lookahead"),
            *_every_deal(4, 4, 3, "safe", "lowest-probability")]
    (comparison,) = compare(both)
    assert comparison.games == 455 and sum(comparison.only) >= 10
    assert comparison.odds_adjusted is not None
    assert comparison.odds_adjusted.value == pytest.approx(comparison.difference, abs=1e-12)
    low, high = comparison.odds_adjusted.ci95
    paired_low, paired_high = comparison.ci95
    assert high - low < paired_high - paired_low


def test_the_odds_adjusted_interval_is_narrower_than_wilsons() -> None:
    """How much narrower depends on the guesses: 0.64 times as wide here, with 1.4 guesses
    a game; 0.46 on beginner (README)."""
    (summary,) = summarize(_every_deal(4, 4, 4, "safe", "lowest-probability"))
    assert summary.odds_adjusted is not None
    low, high = summary.odds_adjusted.ci95
    wilson_low, wilson_high = summary.ci95
    assert low < summary.odds_adjusted.value < high
    assert high - low < 0.75 * (wilson_high - wilson_low)
    assert 0 < summary.odds_adjusted.coefficient < 1


def test_the_correction_takes_off_what_the_luck_explains() -> None:
    # Each game's result is its luck and 3/4: with that luck taken out, nothing varies.
    games = [_game(won) for won in [True, False] * (MIN_ADJUSTED // 2)]  # one guess at 1/4
    estimate = odds_adjusted(games)
    assert estimate is not None
    assert (estimate.coefficient, estimate.value, *estimate.ci95) == pytest.approx(
        (1.0, 0.75, 0.75, 0.75))
    unlucky, untold = (Estimate.controlled([1.0, 0.0] * 50, controls)
                       for controls in ([0.0] * 100, [0.1, 0.1, -0.1, -0.1] * 25))
    assert untold.coefficient == 0.0 and untold == unlucky  # luck that tells nothing
    (summary,) = summarize(games)
    assert summary.as_dict()["odds_adjusted"] == {
        "value": estimate.value, "ci95": list(estimate.ci95), "coefficient": 1.0}


def test_odds_adjusted_rates_only_for_uniform_deals_and_enough_games() -> None:
    # Kaboom puts mines under guesses, and desktop games deal their own way (Tatham's
    # Mines one that needs no guess): their odds are not the chances of a mine.
    games = [_game(won) for won in [True] * (MIN_ADJUSTED - 10) + [False] * 10]
    assert odds_adjusted(games) is not None
    assert odds_adjusted(games[1:]) is None  # 99 games
    assert odds_adjusted(games[:-1] + [games[0]]) is None  # 9 lost
    assert odds_adjusted([dataclasses.replace(game, rules="kaboom") for game in games]) is None
    assert odds_adjusted([dataclasses.replace(game, source="desktop/sgt-mines")
                          for game in games]) is None


def test_strategies_are_compared_odds_adjusted_seed_by_seed(stats_path: Path) -> None:
    rng = random.Random(1)

    def game(seed: int, strategy: str) -> GameRecord:
        return dataclasses.replace(_game(rng.random() < 0.8), seed=seed, strategy=strategy,
                                   guesses=(rng.random() / 2,))

    new = [game(seed, "lookahead") for seed in range(MIN_ADJUSTED + 1)]  # one seed unpaired
    old = [game(seed, "lowest-probability") for seed in reversed(range(MIN_ADJUSTED))]
    (comparison,) = compare([*new, *old])
    assert comparison.odds_adjusted == Estimate.controlled(
        [float(x.won) - y.won for x, y in zip(new, reversed(old))],
        [luck(x) - luck(y) for x, y in zip(new, reversed(old))])
    (few,) = compare([*new[:MIN_ADJUSTED - 1], *old])
    assert few.odds_adjusted is None
    _record(stats_path, [*new, *old])
    report = json.loads(CliRunner().invoke(cli, ["stats", "--db", str(stats_path),
                                                 "--json"]).output)
    assert report["comparisons"][0]["odds_adjusted"] == comparison.odds_adjusted.as_dict()


def test_sim_and_stats_show_the_odds_adjusted_rate(stats_path: Path) -> None:
    args = ["sim", "--board", "4x4/4", "--games", str(MIN_ADJUSTED), "--seed", "1",
            "--workers", "1", "--quiet", "--db", str(stats_path)]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    (summary,) = summarize(StatsStore(stats_path, read_only=True).games())
    assert summary.odds_adjusted is not None
    low, high = summary.odds_adjusted.ci95
    shown = f"{100 * summary.odds_adjusted.value:.2f}% ({100 * low:.2f}-{100 * high:.2f}%)"
    assert (f"odds-adjusted win rate {shown} (corrected for the luck of the guesses)\n"
            in result.output)
    report = json.loads(CliRunner().invoke(cli, [*args, "--json"]).output)
    assert report["odds_adjusted"] == summary.odds_adjusted.as_dict()
    table = CliRunner().invoke(cli, ["stats", "--db", str(stats_path)],
                               env={"COLUMNS": "250"}).output
    assert shown in table
