"""The tools the README's figures name: ``tools/tune.py`` plays the deals of ``autoplay
sim``, changes only the constants asked for, in every worker, and records the runs so that
``autoplay stats`` pairs them; ``tools/first_guess.py`` forces the first guess on the deals
whose first click shows a number."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from pytest import approx

from autoplay.report import compare
from autoplay.sim import PRESETS, deal, game_seed, play_sim
from autoplay.stats import GameRecord, StatsStore

ROOT = Path(__file__).resolve().parent.parent


def _tune(db: Path, *options: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "tools/tune.py", str(db), "--preset", "beginner",
                           "--seed", "3", "--games", "12", *options],
                          cwd=ROOT, capture_output=True, text=True, check=False)


def _runs(db: Path) -> dict[str, dict[int | None, GameRecord]]:
    with StatsStore(db) as store:
        games = list(store.games())
    runs: dict[str, dict[int | None, GameRecord]] = {}
    for game in games:
        runs.setdefault(game.strategy, {})[game.seed] = game
    return runs


def test_tune_replays_the_deals_with_the_constants_changed_in_every_worker(
        tmp_path: Path) -> None:
    db = tmp_path / "tune.sqlite3"
    for options in (["--workers", "1"],
                    ["--workers", "2", "--set", '{"NEAR": "9/10", "BLEND": [4, 1]}'],
                    ["--workers", "2", "--set", '{"BLEND": [0, 0]}']):
        result = _tune(db, *options)
        assert result.returncode == 0, result.stderr
    runs = _runs(db)
    base = runs["lookahead"]
    shipped = runs['lookahead BLEND=[4, 1] NEAR="9/10"']  # the shipped values, set explicitly
    blind = runs["lookahead BLEND=[0, 0]"]  # every candidate scores 0: a seeded coin picks
    assert len(base) == len(shipped) == len(blind) == 12
    assert all((shipped[s].won, shipped[s].clicks, shipped[s].guesses)
               == (base[s].won, base[s].clicks, base[s].guesses) for s in base)
    assert any((blind[s].clicks, blind[s].guesses) != (base[s].clicks, base[s].guesses)
               for s in base)
    pairs = {c.strategies: c for c in compare(game for run in runs.values()
                                              for game in run.values())}
    same = pairs[("lookahead", 'lookahead BLEND=[4, 1] NEAR="9/10"')]
    assert (same.games, same.only) == (12, (0, 0))


def test_tune_refuses_a_constant_that_does_not_exist(tmp_path: Path) -> None:
    result = _tune(tmp_path / "tune.sqlite3", "--games", "1", "--set", '{"NO_SUCH": 1}')
    assert result.returncode != 0
    assert "has no constant NO_SUCH" in result.stderr


def _first_guess(db: Path, *options: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "tools/first_guess.py", str(db), "--preset",
                           "beginner", "--seed", "3", "--deals", "40", *options],
                          cwd=ROOT, capture_output=True, text=True, check=False)


def test_first_guess_forces_the_cell_on_the_deals_whose_first_click_shows_the_number(
        tmp_path: Path) -> None:
    db = tmp_path / "first.sqlite3"
    result = _first_guess(db, "--shows", "1", "8,8", "0,2")
    assert result.returncode == 0, result.stderr
    config = PRESETS["beginner"]
    shown = {}
    for i in range(40):
        seed = game_seed(3, i)
        game, _ = deal(config, seed)
        game.reveal(config.first_cell)
        shown[seed] = game.observe()[config.first_cell]
    runs = _runs(db)
    kept = {seed for seed, value in shown.items() if value == 1}
    assert kept and kept != shown.keys()
    assert {name: set(games) for name, games in runs.items()} == {
        "lookahead": kept, "lookahead, first guess 8,8": kept,
        "lookahead, first guess 0,2": kept}
    for seed in kept:
        assert runs["lookahead"][seed].won == play_sim(config, seed).won
        # Both cells touch no count: each holds one of the 9 mines left among 77 such cells.
        assert runs["lookahead, first guess 8,8"][seed].guesses[0] == approx(9 / 77)
        assert runs["lookahead, first guess 0,2"][seed].guesses[0] == approx(9 / 77)
    # The same first-guess odds, but other cells opened: the games go other ways.
    assert any((runs[name][seed].clicks, runs[name][seed].guesses)
               != (runs["lookahead"][seed].clicks, runs["lookahead"][seed].guesses)
               for seed in kept for name in runs)


def test_first_guess_refuses_the_first_click_itself(tmp_path: Path) -> None:
    result = _first_guess(tmp_path / "first.sqlite3", "0,0")
    assert result.returncode != 0
    assert "0,0 is the first click or off the board" in result.stderr
