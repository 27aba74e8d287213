"""The tuning scripts the README's figures name: they play the same deals, change only the
constants asked for, and compare game by game."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, *args], cwd=ROOT, capture_output=True, text=True,
                          check=False)


def _tune(out: Path, *options: str) -> dict[int, bool]:
    result = _run("tools/tune.py", str(out), "--preset", "beginner", "--seed", "3",
                  "--games", "12", "--workers", "1", *options)
    assert result.returncode == 0, result.stderr
    with out.open() as lines:
        return {game["i"]: game["won"] for game in map(json.loads, lines)}


def test_tune_replays_the_same_deals_and_compare_pairs_them(tmp_path: Path) -> None:
    first = _tune(tmp_path / "a.jsonl")
    again = _tune(tmp_path / "b.jsonl", "--set", '{"NEAR": "9/10", "BLEND": [4, 1]}')
    assert sorted(first) == list(range(12))
    assert first == again  # the shipped values, set explicitly: the same games, the same results
    result = _run("tools/compare.py", str(tmp_path / "a.jsonl"), str(tmp_path / "b.jsonl"))
    assert result.returncode == 0, result.stderr
    assert f"{sum(first.values())}/12 won" in result.stdout
    assert "12 games: won only by it 0" in result.stdout


def test_tune_refuses_a_constant_that_does_not_exist(tmp_path: Path) -> None:
    result = _run("tools/tune.py", str(tmp_path / "x.jsonl"), "--games", "1",
                  "--set", '{"NO_SUCH": 1}')
    assert result.returncode != 0
    assert "has no constant NO_SUCH" in result.stderr
