"""The tools the figures of the README and docs/ name: ``tools/tune.py`` plays the deals of
``autoplay sim``, changes only the constants asked for, in every worker, and records the runs
so that ``autoplay stats`` pairs them; ``tools/first_guess.py`` forces the first guess on the
deals whose first click shows a number; ``tools/rollout.py`` plays the player's later guesses
again from layouts drawn for their positions; ``tools/solver_checks.py`` counts the deducer's
Z3 checks under each phase setting; ``tools/unknown_count.py`` plays each deal told the mine
count and not told; ``tools/nonogram_times.py`` times the nonogram solver on the clues of
random pictures; ``tools/sgt_tile_sizes.py`` plays Tatham's Mines at other tile sizes;
``tools/endgame_gain.py`` counts what each endgame search wins over secondary safety."""

from __future__ import annotations

import hashlib
import json
import random
import subprocess
import sys
from fractions import Fraction
from itertools import islice
from pathlib import Path

import numpy as np
from pytest import approx

from autoplay import pb
from autoplay.bench import expert_positions
from autoplay.board import UNKNOWN, Board, Cell
from autoplay.deduction import deduce
from autoplay.lookahead import NEAR
from autoplay.nonogram import solutions
from autoplay.odds import mine_probabilities
from autoplay.report import compare
from autoplay.sim import PRESETS, SimConfig, deal, game_seed, play_sim
from autoplay.stats import GameRecord, StatsStore
from autoplay.vision import Geometry, Reading, load_skins
from tools import nonogram_times, reading_faults, rollout, solver_checks, unknown_count

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


def test_endgame_gain_finds_the_search_never_wins_fewer_layouts_than_secondary_safety() -> None:
    run = subprocess.run([sys.executable, "tools/endgame_gain.py", "--preset", "beginner",
                          "--seed", "3", "--games", "300", "--above", "0", "--workers", "2"],
                         cwd=ROOT, capture_output=True, text=True, check=True)
    lines = run.stdout.splitlines()
    searches = [tuple(map(int, line.split())) for line in lines if line[0].isdigit()
                and len(line.split()) == 4]
    assert len(searches) >= 5 and f"{len(searches)} searches of more than 0 layouts" in run.stdout
    assert all(0 < secondary <= search <= layouts for layouts, _, search, secondary in searches)
    assert any(secondary < search for _, _, search, secondary in searches)


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


def test_rollout_positions_are_the_guesses_the_player_had_to_make_after_the_first_click() -> None:
    config = PRESETS["beginner"]
    found = [position for i in range(30) for position in rollout.positions(config, game_seed(3, i))]
    assert len(found) >= 3
    for position in found:
        board = position.board
        assert board[position.pick] == UNKNOWN
        assert sum(state >= 0 for state in board.states) > 1
        assert not deduce(board).safe, "a guess is made only when nothing is proven safe"


def test_rollout_candidates_are_the_pick_then_the_nearly_safest_cells() -> None:
    board = Board.parse("mines: 3\n?1??\n????\n?1??\n????")
    risk = mine_probabilities(board).probabilities
    pick = Cell(0, 0)
    cells = rollout.candidates(board, pick, 6)
    assert cells[0] == pick and len(set(cells)) == len(cells) == 6
    safest = 1 - min(risk.values())
    assert all(1 - risk[cell] >= NEAR * safest for cell in cells[1:])
    assert [risk[cell] for cell in cells[1:]] == sorted(risk[cell] for cell in cells[1:])
    assert rollout.candidates(board, pick, 1) == [pick]


def test_a_rollout_is_won_or_lost_as_the_layout_decides() -> None:
    # One mine, at (1, 0) or (1, 1) (a coin toss): the rest is opened.
    board = Board.parse("mines: 1\n11\n??")
    mines = frozenset({Cell(1, 0)})
    assert not rollout._wins(board, mines, Cell(1, 0), random.Random(0))
    assert rollout._wins(board, mines, Cell(1, 1), random.Random(0))
    rows = rollout.outcomes(board, [Cell(1, 0), Cell(1, 1)], 400, seed=1)
    # Each cell is the mine in half the layouts drawn, and they never both win.
    assert not any(a and b for a, b in zip(*rows))
    assert [sum(row) for row in rows] == [400 - sum(rows[1]), 400 - sum(rows[0])]
    assert abs(Fraction(sum(rows[0]), 400) - Fraction(1, 2)) < Fraction(1, 10)


def test_the_split_gain_scores_each_half_choice_on_the_other_half() -> None:
    # The halves are the even and the odd layouts.
    assert rollout.split_gain(["1100", "1111"]) == 0.5  # the other cell wins everywhere
    assert rollout.split_gain(["1111", "1100"]) == 0.0  # the pick is best
    assert rollout.split_gain(["1100", "1100"]) == 0.0  # a tie keeps the pick
    # The other cell wins every even layout and loses every odd one: chosen on the even
    # half it loses 1 on the odd; on the odd half the pick is kept.
    assert rollout.split_gain(["0101", "1010"]) == -0.5


def test_rollout_writes_each_position_and_sums_the_gain(tmp_path: Path) -> None:
    out = tmp_path / "rollout.jsonl"
    result = subprocess.run([sys.executable, "tools/rollout.py", str(out), "--preset", "beginner",
                             "--seed", "3", "--games", "30", "--layouts", "8", "--candidates",
                             "3", "--workers", "2"],
                            cwd=ROOT, capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout)
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert summary["games"] == 30 and summary["positions"] == len(records) >= 3
    config = PRESETS["beginner"]
    picks = {(game_seed(3, i), position.guess): position.pick for i in range(30)
             for position in rollout.positions(config, game_seed(3, i))}
    assert {(r["seed"], r["guess"]): Cell(*r["cells"][0]) for r in records} == picks
    assert all(len(row) == 8 for r in records for row in r["wins"])
    gain, low, high = summary["rollout_choice_points"]
    assert low <= gain <= high
    assert gain == approx(100 * sum(rollout.split_gain(r["wins"]) for r in records) / 30)
    second = summary["kth_candidate_points"]["1"][0]
    assert second == approx(100 * sum(row[1].count("1") / 8 - row[0].count("1") / 8
                                      for row in (r["wins"] for r in records)
                                      if len(row) > 1) / 30)


def test_solver_checks_counts_each_check_under_the_phase_asked_for() -> None:
    """On expert positions, where the README's figures show the phases far apart (on the
    article's board they are 7 and 8, and Z3's choices there follow what the process made
    before: run after other tests, random once took 8 and caching 7)."""
    positions = expert_positions(3)
    assert solver_checks.checks([Board.parse("0.\n..")], "random") == 0  # no Z3 needed
    random_phase, caching = (solver_checks.checks(positions, phase) for phase in ("random",
                                                                                  "caching"))
    assert 0 < random_phase < caching
    init, check = pb.PbSolver.__init__, pb.PbSolver.check
    assert solver_checks.checks(positions, "random") == random_phase
    assert (pb.PbSolver.__init__, pb.PbSolver.check) == (init, check)  # put back


def test_unknown_count_plays_each_deal_told_the_count_and_not_told() -> None:
    result = subprocess.run([sys.executable, "tools/unknown_count.py", "--board", "7x7/9",
                             "--seed", "3", "--games", "24", "--workers", "2"],
                            cwd=ROOT, capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr
    told, blind, only = result.stdout.splitlines()
    config = SimConfig(7, 7, 9)
    won = [unknown_count.play_deal(config, game_seed(3, i)) for i in range(24)]
    told_wins, blind_wins = sum(t for t, _ in won), sum(b for _, b in won)
    assert told_wins == sum(play_sim(config, game_seed(3, i)).won for i in range(24))
    assert told.startswith(f"7x7/9, 24 games of seed 3, told the count: {told_wins} won")
    assert blind.startswith(f"7x7/9, 24 games of seed 3, not told: {blind_wins} won")
    assert only == (f"won only when told: {sum(t and not b for t, b in won)}, "
                    f"only when not told: {sum(b and not t for t, b in won)}")


def test_sgt_tile_sizes_plays_at_each_size_on_a_screen_of_its_own() -> None:
    """Two sizes in one run, each game drawn at its size (the cells found say so): a
    process that clicked on one virtual screen cannot click on the next."""
    result = subprocess.run([sys.executable, "tools/sgt_tile_sizes.py", "--games", "1",
                             "24", "30"], cwd=ROOT, capture_output=True, text=True,
                            check=False, stdin=subprocess.DEVNULL, timeout=240)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == ["24 px, cells of 24.0 px found: 1 won, 0 lost",
                                          "30 px, cells of 30.0 px found: 1 won, 0 lost"]


def test_a_cut_reads_as_what_it_shows_only_when_the_line_beyond_is_opened() -> None:
    """sgt-mines/9x9-won: its first column and last row are opened, its first row, last
    column and second last row flagged."""
    path = ROOT / "fixtures" / "screenshots" / "sgt-mines" / "9x9-won.png"
    rows = str(reading_faults.truth_of(path).with_mines(None)).splitlines()
    assert rows[8].isdigit() and not rows[7].isdigit() and not rows[0].isdigit()

    def outcome(kept: list[str], side: str, edges: tuple[str, ...] = ()) -> str:
        board = Board.parse("\n".join(kept))
        reading = Reading(board, Geometry(0, 0, 20, 20, board.height, board.width),
                          "sgt-mines", edges=edges)
        return reading_faults.cut_reading(reading, path, side)

    assert outcome(rows[:8], "bottom") == "read as what it shows"
    assert outcome(rows[:7], "bottom") == "read, covered cells beyond"
    assert outcome(rows[1:], "top") == "read, covered cells beyond"
    assert outcome([row[1:] for row in rows], "left") == "read as what it shows"
    assert outcome([row[:8] for row in rows], "right") == "read, covered cells beyond"
    assert outcome(rows[:7] + [rows[8]], "bottom") == "read wrong"
    assert outcome(rows, "bottom") == "read whole"  # the line cut short read all the same
    assert outcome([rows[1], *rows[1:]], "bottom") == "read wrong"
    assert outcome(rows[:7], "bottom", ("bottom",)) == "read, said to reach the edge"


def test_a_sliver_cut_through_flags_is_refused_and_one_through_opened_cells_is_read() -> None:
    """``reading_faults.py slivers``' cases, on sgt-mines/9x9-won (see above): cut 5 px
    into its flagged first row or last column, and into its opened first column or last
    row."""
    path = ROOT / "fixtures" / "screenshots" / "sgt-mines" / "9x9-won.png"
    skins = load_skins()
    image = reading_faults.picture(path)
    box = (30, 55, 210, 235)  # its board, 20 px cells
    assert reading_faults.cut_into(image, box, "top", 5).shape == (image.shape[0] - 60,
                                                                   *image.shape[1:])
    assert reading_faults.cut_into(image, box, "right", 5).shape[1] == 205
    outcomes = {side: reading_faults.cut_outcome(reading_faults.cut_into(image, box, side, 5),
                                                 path, skins, side)
                for side in ("top", "bottom", "left", "right")}
    assert outcomes == {"top": "refused as cut", "right": "refused as cut",
                        "bottom": "read as what it shows", "left": "read as what it shows"}


def test_reading_faults_counts_with_the_shipped_skins_only(learned_skins: Path) -> None:
    """A skin the user learned, here the README's own example, would read fixtures right
    under its own name, which the tally counts as wrong."""
    shipped = [skin.name for skin in reading_faults.shipped_skins()]
    load_skins()[0].save(learned_skins / "my-xdemineur")
    assert "my-xdemineur" in [skin.name for skin in load_skins()]
    assert [skin.name for skin in reading_faults.shipped_skins()] == shipped == sorted(
        ["sgt-mines", "gnome-mines", "xdemineur", "xbomb", "ace-minesweeper"])


def test_a_reading_record_gives_the_board_read_or_the_error() -> None:
    """What ``reading_faults.py readings`` prints a line of, for two commits to compare."""
    path = ROOT / "fixtures" / "screenshots" / "sgt-mines" / "9x9-mid.png"
    skins = load_skins()
    image = reading_faults.on_desktop(reading_faults.scaled(reading_faults.picture(path), 1.5),
                                      150)
    record = reading_faults.reading_record(image, skins)
    assert (record["skin"], record["board"], record["unrecognized"]) == (
        "sgt-mines", str(reading_faults.truth_of(path)), 0)
    assert isinstance(record["seconds"], float) and record["seconds"] > 0
    plain = reading_faults.reading_record(np.full((200, 300, 3), 150, np.uint8), skins)
    assert set(plain) == {"error", "seconds"}
    assert str(plain["error"]).startswith("no Minesweeper board found in the 300x200 image")


def test_nonogram_times_answers_as_the_solver_does_and_counts_out_of_time_as_the_limit(
) -> None:
    """The random pictures are the seeds' own, filled half and half; each answer is the
    solver's, and a puzzle out of time counts the limit in the summary."""
    clues = nonogram_times.random_clues(12, 3)
    assert (clues.width, clues.height) == (12, 12)
    assert nonogram_times.random_clues(12, 3) == clues != nonogram_times.random_clues(12, 4)
    for seed in (1, 2, 3):
        clues = nonogram_times.random_clues(10, seed)
        _, _, answer = nonogram_times.time_puzzle(clues, 30)
        assert answer == ("none", "one", "several")[len(list(islice(solutions(clues), 2)))]
    result = subprocess.run([sys.executable, "tools/nonogram_times.py", "--side", "60",
                             "--seeds", "1-2", "--timeout", "0.2"], cwd=ROOT, check=True,
                            capture_output=True, text=True)
    assert result.stdout.splitlines() == [
        "seed 1: first grid -, answer 0.2 s (out of time)",
        "seed 2: first grid -, answer 0.2 s (out of time)",
        ("2 puzzles of 60x60: answer in a median 0.2 s, 0.4 s in all, the slowest 0.2 s "
         "(out of time counts 0.2 s)")]


def test_reading_faults_refuses_an_option_its_sweep_does_not_take() -> None:
    for options, message in ((["whole", "--scale", "0.75"],
                              ("--scale goes with slivers, clipped, past and readings only, "
                               "not whole")),
                             (["cut-each", "--seed", "3"], "--seed goes with cuts only")):
        result = subprocess.run([sys.executable, "tools/reading_faults.py", *options], cwd=ROOT,
                                capture_output=True, text=True, check=False)
        assert result.returncode == 2 and message in result.stderr


def test_read_times_times_each_image_and_compares_two_commits(tmp_path: Path) -> None:
    """``time`` reads the image (its board's hash, every cell recognised), and ``compare``
    gives medians, each image's and over the images, and flags an image two runs read
    differently."""
    image = "fixtures/screenshots/sgt-mines/9x9-opened.png"
    truth = Board.parse((ROOT / image.replace(".png", ".board.txt")).read_text())
    for name in ("a.json", "b.json"):
        subprocess.run([sys.executable, "tools/read_times.py", "time", str(tmp_path / name),
                        image], cwd=ROOT, check=True, capture_output=True, text=True)
    seconds, read = json.loads((tmp_path / "a.json").read_text())[image]
    assert seconds > 0
    assert read == hashlib.sha256(str(truth).encode()).hexdigest()[:8] + ", 0 not recognised"

    def compared(*before: str) -> list[str]:
        return subprocess.run(
            [sys.executable, "tools/read_times.py", "compare",
             *(str(tmp_path / name) for name in before), "--against", str(tmp_path / "b.json")],
            cwd=ROOT, check=True, capture_output=True, text=True).stdout.splitlines()
    lines = compared("a.json")
    assert lines[0].split() == ["before", "after", "ratio", "image"]
    assert lines[1].endswith(image)
    assert lines[2].split()[:2] == lines[1].split()[:2]
    assert lines[2].endswith("the median of 1 image, each " + lines[1].split()[2] + " to "
                             + lines[1].split()[2])
    other = {image: [seconds, "error: no Minesweeper board found"]}
    (tmp_path / "c.json").write_text(json.dumps(other))
    assert "READ DIFFERENTLY" in compared("a.json", "c.json")[1]
