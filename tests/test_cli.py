"""The command line: exact output and exit codes, as a user sees them."""

from __future__ import annotations

import json
import os
import random
import re
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from autoplay.cli import cli
from autoplay.desktop import GAMES, LEVELS
from autoplay.sim import PRESETS
from tests.processes import run_autoplay, run_in_terminal
from tests.test_interrupts import large_board
from tools.nonogram_times import random_clues

ROOT = Path(__file__).resolve().parent.parent


def run(*args: str, stdin: str | None = None) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args), input=stdin, prog_name="autoplay")
    return result.exit_code, result.stdout, result.stderr


def test_solve_marks_safe_cells_and_mines() -> None:
    code, out, _ = run("solve", "-", stdin="1.1\n111\n...\n")
    assert code == 0
    assert out == ("1!1\n"
                   "111\n"
                   "+++\n"
                   "3 safe (+), 1 mine (!), 0 not determined, of 4 unopened cells\n")


def test_solve_keeps_each_row_of_a_wide_board_on_one_line() -> None:
    """A pipe is 80 columns to rich: rows and the guess's sentence must not be folded."""
    code, out, _ = run("solve", "-", stdin=f"mines: 2\n1{'?' * 119}\n{'?' * 120}\n")
    lines = out.splitlines()
    assert code == 0 and lines[:2] == ["1" + "." * 119, "." * 120] and len(lines) == 4
    assert re.fullmatch(r"nothing is proven safe: the best guess is \(\d, \d+\), a mine with "
                        r"probability \d+\.\d% \(forced guess: .* costs nothing\)", lines[3])


def test_solve_json_has_the_documented_shape() -> None:
    board = ROOT / "fixtures" / "boards" / "article-24x20.txt"
    code, out, _ = run("solve", "--json", str(board))
    assert code == 0
    report = json.loads(out)
    assert {k: report[k] for k in ("rows", "cols", "mines", "consistent")} == {
        "rows": 20, "cols": 24, "mines": None, "consistent": True}
    assert len(report["safe"]) == 43 and len(report["mine"]) == 54
    assert report["safe"] == sorted(report["safe"]) and [0, 6] in report["safe"]


def test_solve_reads_the_mine_count_option() -> None:
    code, out, _ = run("solve", "--json", "--mines", "1", "-", stdin="1...\n....\n")
    report = json.loads(out)
    assert (code, report["mines"]) == (0, 1)
    assert report["safe"] == [[0, 2], [0, 3], [1, 2], [1, 3]]


def test_solve_json_names_the_cells_that_can_go_either_way() -> None:
    code, out, _ = run("solve", "--json", "--odds", "-", stdin="1.\n..\n2.\n")
    report = json.loads(out)
    assert code == 0
    assert (report["safe"], report["mine"], report["undecided"]) == ([[0, 1]], [[2, 1]], [])
    assert report["not_determined"] == [[1, 0], [1, 1]]
    assert all(0 < p < 1 for row, col, p in report["odds"] if [row, col] in
               report["not_determined"])


def test_an_inconsistent_board_exits_1_with_one_line() -> None:
    code, out, err = run("solve", "-", stdin="2?\n")
    assert (code, out) == (1, "")
    assert err == ("Error: line 1, column 1: count 2 is larger than the cell's 1 neighbour, "
                   "so no mine layout fits\n")
    code, out, _ = run("solve", "--json", "-", stdin="2?\n")
    assert code == 1 and json.loads(out)["consistent"] is False


@pytest.mark.parametrize(("board", "message"), [
    ("mines: 0\n*.\n", ("no mine layout fits this board with 0 mines: it shows 1 flag or mine "
                        "already")),
    ("mines: 1\n**\n", ("no mine layout fits this board with 1 mine: it shows 2 flags and "
                        "mines already")),
    ("mines: 3\n1..\n", ("no mine layout fits this board with 3 mines: 3 would be left for 2 "
                         "unopened cells")),
])
def test_counts_in_messages_agree_with_their_nouns(board: str, message: str) -> None:
    assert run("solve", "-", stdin=board) == (1, "", f"Error: {message}\n")


def test_a_deadline_before_any_layout_leaves_consistency_open() -> None:
    """No layout fits (at most 3 mines can), but a nanosecond finds that out for nobody:
    the board is not called consistent, and the summary says why nothing holds."""
    board = "mines: 7\nF2\n..\n1.\n..\n..\n"
    code, out, _ = run("solve", "--json", "--timeout", "1e-9", "-", stdin=board)
    report = json.loads(out)
    assert (code, report["consistent"], report["safe"], report["mine"]) == (0, None, [], [])
    code, out, _ = run("solve", "--timeout", "1e-9", "-", stdin=board)
    assert code == 0 and out.splitlines()[-1] == (
        "0 safe (+), 0 mines (!), 0 not determined, of 7 unopened cells; 7 undecided when the "
        "time ran out, before a layout that fits was found: the board may have none, and then "
        "nothing here holds")
    assert run("solve", "-", stdin=board)[0] == 1


def test_inconsistent_json_keeps_the_shape() -> None:
    code, out, _ = run("solve", "--json", "-", stdin="mines: 1\n1..1\n")
    report = json.loads(out)
    assert code == 1
    assert (report["consistent"], report["safe"], report["mine"], report["rows"]) == (
        False, [], [], 1)


def test_wrong_flags_are_named() -> None:
    code, _, err = run("solve", "-", stdin="0F\n..\n")
    assert code == 1
    assert err == ("Error: cell (0, 0) shows 0 but the flags and mines around it number 1; "
                   "without the flags it fits, and these flags cannot be mines: (0, 1) "
                   "(--ignore-flags reads every flag as unopened)\n")


def test_flags_that_cannot_all_be_mines_are_named_as_a_set() -> None:
    code, _, err = run("solve", "-", stdin="1F\nF.\n")
    assert code == 1
    assert err.endswith("without the flags it fits: the flags cannot all be mines at once "
                        "(--ignore-flags reads every flag as unopened)\n")


def test_wrong_flags_can_be_read_as_unopened() -> None:
    board = "0F\n..\n"  # no mine touches the 0
    code, _, err = run("solve", "-", stdin=board)
    assert code == 1 and "these flags cannot be mines: (0, 1) (--ignore" in err
    code, out, _ = run("solve", "--ignore-flags", "--json", "-", stdin=board)
    assert code == 0
    assert (json.loads(out)["safe"], json.loads(out)["mine"]) == ([[0, 1], [1, 0], [1, 1]], [])


def test_a_malformed_board_names_line_and_column() -> None:
    code, _, err = run("solve", "-", stdin="1..\n.#.\n")
    assert (code, err) == (1, ("Error: line 2, column 2: unknown cell character '#' in '.#.' "
                              "(a cell is 0-8, '.', '_' or '?' unopened, 'F' a flag, '*' a "
                              "mine, 'X' a mine gone off or 'W' a wrong flag)\n"))


def test_debug_shows_the_traceback_of_an_input_error(tmp_path: Path) -> None:
    board = tmp_path / "bad.txt"
    board.write_text("1..\n.#.\n")
    process = run_autoplay("--debug", "solve", str(board))
    _, err = process.communicate(timeout=60)
    lines = err.splitlines()
    assert process.returncode == 1
    assert lines[0] == "Traceback (most recent call last):"
    assert any(line.endswith(", in parse") for line in lines), err  # where it was raised
    assert lines[-1].startswith("autoplay.errors.BoardFormatError: line 2, column 2: ")


def test_an_empty_or_missing_file_is_one_line(tmp_path: Path) -> None:
    empty = tmp_path / "empty.txt"
    empty.write_text("")
    assert run("solve", str(empty))[1:] == ("", "Error: empty board: no rows\n")
    missing = tmp_path / "nope.txt"
    code, _, err = run("solve", str(missing))
    assert (code, err) == (1, f"Error: cannot read {missing}: No such file or directory\n")


def test_layout_prints_mines_as_stars() -> None:
    code, out, _ = run("solve", "--layout", "-", stdin="1.1\n111\n...\n")
    assert (code, out) == (0, "1*1\n111\n...\n")
    code, out, _ = run("solve", "--layout", "-", stdin="mines: 1\n1..1\n")
    assert (code, out) == (1, "no layout fits\n")


def test_layout_in_json_lists_the_mines() -> None:
    code, out, _ = run("solve", "--layout", "--json", "-", stdin="1.1\n111\n...\n")
    assert (code, json.loads(out)) == (0, {"rows": 3, "cols": 3, "mines": None,
                                           "layout": [[0, 1]]})
    code, out, _ = run("solve", "--layout", "--json", "-", stdin="mines: 1\n1..1\n")
    assert (code, json.loads(out)) == (1, {"rows": 1, "cols": 4, "mines": 1, "layout": None})


@pytest.mark.parametrize("args", [["--count", "--layout"], ["--layout", "--odds"],
                                  ["--count", "--timeout", "1"], ["--layout", "--timeout", "1"]])
def test_options_of_the_deduction_are_refused_with_another_question(args: list[str]) -> None:
    code, out, err = run("solve", *args, "-", stdin="1.\n..\n")
    assert (code, out) == (2, "")
    assert err.startswith("Error: --") and "does not go with --" in err


@pytest.mark.parametrize("board", ["mines: 0\n1.\n..\n", "2?\n"])
def test_count_and_layout_of_no_layout_exit_1(board: str) -> None:
    """Alike whether the solver finds no layout or the board's parser does (a count larger
    than its neighbourhood): both answer the question asked, in its shape."""
    assert run("solve", "--count", "-", stdin=board) == (1, "no layout fits\n", "")
    code, out, _ = run("solve", "--count", "--json", "-", stdin=board)
    assert (code, json.loads(out)) == (1, {"layouts": 0, "more": False, "limit": 10_000})
    assert run("solve", "--layout", "-", stdin=board) == (1, "no layout fits\n", "")
    code, out, _ = run("solve", "--layout", "--json", "-", stdin=board)
    assert code == 1 and json.loads(out)["layout"] is None


def test_count_decides_uniqueness() -> None:
    assert run("solve", "--count", "-", stdin="1.1\n") == (0, "exactly one layout fits\n", "")
    assert run("solve", "--count", "-", stdin="1.\n..\n") == (0, "3 layouts fit\n", "")
    assert run("solve", "--count", "2", "-", stdin="1.\n..\n") == (
        0, "more than 2 layouts fit\n", "")
    assert run("solve", "-", "--count", "1", stdin="1.\n..\n") == (
        0, "more than 1 layout fits\n", "")
    assert run("solve", "--count", "-", stdin="mines: 2\n1..1\n") == (
        0, "exactly one layout fits\n", "")
    assert run("solve", "--count", "--json", "-", stdin="1.\n..\n") == (
        0, '{"layouts": 3, "more": false, "limit": 10000}\n', "")


@pytest.mark.parametrize("command", [["solve"], ["play", "--dry-run"]])
def test_a_mine_count_has_at_most_18_digits_as_a_mines_line_has(command: list[str]) -> None:
    code, out, err = run(*command, "--mines", "1" * 19, "-", stdin="1.\n")
    assert (code, out) == (2, "")
    assert "is not in the range 0<=x<=999999999999999999" in err


def test_count_limit_must_be_a_number() -> None:
    code, _, err = run("solve", "--count", "x", "y")
    assert code == 2 and "'x' is not a whole number" in err
    code, _, err = run("solve", "--count", "\u00b2", "y")  # a digit to str.isdigit, not to int
    assert code == 2 and "'\u00b2' is not a whole number" in err
    code, _, err = run("solve", "--count", "9" * 5000, "y")
    assert code == 2 and "the limit must be at least 1, with at most 18 digits" in err
    # Click leaves a value that looks like an option to the options; the error says why
    for args in (("--count", "-3"), ("--count=-3",)):
        code, _, err = run("solve", *args, "y")
        assert code == 2
        assert err == ("Error: No such option '-3': --count's limit, when given, is at least "
                       "1 (see 'autoplay solve --help')\n")
    code, _, err = run("sim", "-3")  # elsewhere a number can be negative (--seed -3)
    assert (code, err) == (2, "Error: No such option '-3'. (see 'autoplay sim --help')\n")


def test_an_option_without_its_value_names_the_command_s_help() -> None:
    assert run("stats", "--db") == (2, "", ("Error: Option '--db' requires an argument. "
                                            "(see 'autoplay stats --help')\n"))


def test_bench_json_reports_medians_and_ratios() -> None:
    code, out, _ = run("bench", "--suite", "deduce", "--repeat", "1", "--json")
    assert code == 0
    results = json.loads(out)["results"]
    assert [r["name"] for r in results] == ["24x20 board of the article",
                                            "expert 30x16/99 mid-game, 20 positions"]
    for r in results:
        assert r["ratio"] == r["reference_ms"] / r["median_ms"] > 1


@pytest.mark.parametrize("command", ["solve", "nonogram"])
@pytest.mark.parametrize(("seconds", "why"), [
    ("nan", "nan is not a number of seconds"),
    ("inf", "inf is not in the range 0<x<=86400."),
    ("-1", "-1.0 is not in the range 0<x<=86400."),
    ("0", "0 s leaves no time; for no limit, leave the option out"),
    ("-0.0", "0 s leaves no time; for no limit, leave the option out"),
])
def test_a_time_limit_that_is_not_a_number_of_seconds_is_one_usage_line(
        command: str, seconds: str, why: str) -> None:
    code, out, err = run(command, "--timeout", seconds, "-", stdin="1?\n")
    assert (code, out) == (2, "")
    assert err == (f"Error: Invalid value for '--timeout': {why} "
                   f"(see 'autoplay {command} --help')\n")


def test_a_byte_order_mark_is_not_taken_for_a_cell() -> None:
    code, out, _ = run("solve", "-", stdin="\ufeff1.1\n111\n...\n")
    assert code == 0 and out.startswith("1!1\n")


def test_binary_on_standard_input_is_named_as_such() -> None:
    result = CliRunner().invoke(cli, ["solve", "-"], input=b"\xff\xfe\x00junk")
    assert result.exit_code == 1
    assert result.stderr == "Error: standard input is not text (not UTF-8)\n"


def test_demo_plays_every_preset_of_every_game() -> None:
    assert {game: set(levels) for game, levels in LEVELS.items()} == {
        game: set(PRESETS) for game in GAMES}


@pytest.mark.parametrize(("arguments", "why"), [
    (["stats", "--plot", "out.xyz"], "--plot': 'out.xyz' must end in .png, .svg, .pdf"),
    (["stats", "--plot", "/no/such/folder/p.png"],
     "--plot': there is no folder '/no/such/folder' to write in"),
    (["demo", "--record", "out.mp4"], "--record': 'out.mp4' must end in .gif, .png"),
    (["demo", "--window", "big"],
     "--window': expected WxH in pixels such as 1440x868, each from 100 to 8192, got 'big'"),
    (["demo", "--window", "99x500"],
     "--window': expected WxH in pixels such as 1440x868, each from 100 to 8192, got '99x500'"),
    (["solve", "--skin", "no-such-skin", "-"], "--skin': no skin called 'no-such-skin'"),
    (["stats", "--plot", ""], "--plot': the file name is empty"),
    (["stats", "--db", ""], "--db': the file name is empty"),
    (["sim", "--preset", "beginner", "--db", ""], "--db': the file name is empty"),
])
def test_bad_options_are_refused_before_any_work(arguments: list[str], why: str) -> None:
    code, out, err = run(*arguments, stdin="1?\n")
    assert (code, out) == (2, "")
    assert err.startswith(f"Error: Invalid value for '{why}") and err.count("\n") == 1


@pytest.mark.parametrize("option", [["--skin", "xbomb"], ["--allow-unknown"],
                                    ["--annotate", "out.png"]])
def test_options_for_screenshots_are_refused_on_a_text_board(option: list[str]) -> None:
    assert run("solve", *option, "-", stdin="1?\n") == (
        2, "", (f"Error: {option[0]} needs a screenshot, not a text board (see 'autoplay "
               f"solve --help')\n"))


def test_usage_errors_of_the_group_and_of_a_command_are_one_line() -> None:
    assert run("--bogus")[::2] == (2, ("Error: No such option '--bogus'. Did you mean "
                                       "'--verbose'? (see 'autoplay --help')\n"))
    assert run("bogus")[::2] == (2, "Error: No such command 'bogus'. (see 'autoplay --help')\n")


def test_the_installed_command_runs() -> None:
    for command in ([sys.executable, "-m", "autoplay", "--help"],
                    [str(Path(sys.executable).parent / "autoplay"), "--help"]):
        result = subprocess.run(command, capture_output=True, text=True, check=True)
        assert "Usage: autoplay" in result.stdout


def test_every_command_is_in_the_readme_and_has_help() -> None:
    readme = (ROOT / "README.md").read_text()
    for name, command in cli.commands.items():
        assert re.search(rf"autoplay {name}\b", readme), f"README does not show {name}"
        assert command.help, f"{name} has no help text"


def test_with_nothing_safe_solve_names_the_best_guess_and_its_odds() -> None:
    code, out, _ = run("solve", "--json", "-", stdin="mines: 2\n1....\n.....\n.....\n")
    report = json.loads(out)
    assert code == 0 and report["safe"] == []
    # The 1's three neighbours share one mine (1/3 each); the eleven cells away from it
    # share the other (1/11 each): the best guess is one of those eleven.
    assert report["guess"]["probability"] == pytest.approx(1 / 11)
    assert report["guess"]["cell"] not in [[0, 1], [1, 0], [1, 1]]
    assert report["guess"]["exact"] is True


def test_solve_says_why_a_forced_guess_beats_a_safer_cell() -> None:
    # The 1's neighbours (0, 1) and (1, 1) touch the same cells: no click elsewhere tells
    # them apart, so the risk of the one with the mine must be taken anyway.
    code, out, _ = run("solve", "-", stdin="mines: 2\n1...\n....\n")
    assert code == 0
    assert "the best guess is (0, 1), a mine with probability 33.3%" in out
    assert "no click elsewhere can ever tell it from its twin" in " ".join(out.split())


def test_odds_prints_every_unopened_cells_probability() -> None:
    code, out, _ = run("solve", "--odds", "-", stdin="mines: 2\n1...\n....\n")
    assert code == 0
    lines = out.splitlines()
    assert lines[-3] == "mine probability of each unopened cell, in percent"
    assert lines[-2].split() == ["-", "33", "25", "25"]
    assert lines[-1].split() == ["33", "33", "25", "25"]


def test_odds_of_a_wide_board_are_whole_through_a_pipe() -> None:
    # 30 columns of odds need more than the 80 a pipe's console would allow a table.
    row = "." * 30 + "\n"
    code, out, _ = run("solve", "--odds", "-", stdin="mines: 10\n" + row + row)
    assert code == 0
    assert out.splitlines()[-2:] == [" ".join([" 17"] * 30)] * 2


def test_odds_of_a_wide_board_come_in_bands_in_a_narrow_terminal(tmp_path: Path) -> None:
    """An expert board's 30 columns of odds take 119 columns: an 80-column terminal gets
    columns 0-19, then 20-29, instead of each row wrapped onto two lines."""
    board = tmp_path / "expert.txt"
    board.write_text("mines: 99\n" + "".join(f"{'1' if r == 0 else '.'}{'.' * 29}\n"
                                               for r in range(16)))
    whole = run("solve", "--odds", str(board))[1].splitlines()[-16:]
    shown = run_in_terminal("solve", "--odds", str(board), columns=80).splitlines()
    assert max(map(len, shown)) <= 80
    first = shown.index("columns 0-19:")
    assert shown[first + 17] == "columns 20-29:"
    left, right = shown[first + 1:first + 17], shown[first + 18:first + 34]
    assert [f"{a} {b}" for a, b in zip(left, right, strict=True)] == whole
    assert left[0].split()[:2] == ["-", "33"]


@pytest.mark.parametrize(("mines", "shown"), [(1, "<1"), (249, ">99")])
def test_odds_near_certain_do_not_read_as_proven(mines: int, shown: str) -> None:
    """0.4% and 99.6% round to 0 and 100, which the grid keeps for proven cells."""
    code, out, _ = run("solve", "--odds", "-", stdin=f"mines: {mines}\n" + "." * 250 + "\n")
    assert code == 0
    assert out.splitlines()[-1].split() == [shown] * 250


def test_odds_of_proven_cells_are_0_and_100() -> None:
    code, out, _ = run("solve", "--odds", "-", stdin="mines: 1\n1..\n")
    assert code == 0
    assert out.splitlines()[-1].split() == ["-", "100", "0"]


def wide_board(size: int, seed: int) -> str:
    """A consistent board of ``size`` x ``size`` cells, 35% of them mines, opened on a
    checkerboard's squares of one colour (seven in ten of those not mines): a frontier too
    wide to count, whose every unknown cell touches many counts."""
    rng = random.Random(seed)
    mines = {(r, c) for r in range(size) for c in range(size) if rng.random() < 0.35}

    def cell(r: int, c: int) -> str:
        if (r, c) in mines or (r + c) % 2 or rng.random() < 0.3:
            return "."
        return str(sum((r + a, c + b) in mines for a in (-1, 0, 1) for b in (-1, 0, 1)))

    rows = ("".join(cell(r, c) for c in range(size)) for r in range(size))
    return f"mines: {len(mines)}\n" + "\n".join(rows) + "\n"


@pytest.mark.parametrize("timeout", [[], ["--timeout", "0.01"]])
def test_estimated_odds_are_marked_and_keep_the_proofs(timeout: list[str]) -> None:
    # This board's frontier takes too long to count, so its odds are estimates. Within a
    # timeout, the cells the proof did not reach are undecided, and so are their odds.
    code, out, _ = run("solve", "--json", "--odds", *timeout, "-", stdin=wide_board(30, 1))
    assert code == 0
    report = json.loads(out)
    assert report["odds_exact"] is False
    odds = {(row, col): p for row, col, p in report["odds"]}
    assert report["safe"] and report["mine"] and bool(report["undecided"]) == bool(timeout)
    assert all(odds[tuple(cell)] == 0 for cell in report["safe"])
    assert all(odds[tuple(cell)] == 1 for cell in report["mine"])
    assert all(0 < odds[tuple(cell)] < 1 for cell in report["undecided"])
    assert any(0 < p < 1 for p in odds.values())


def test_a_text_input_too_large_for_a_board_is_one_error_line(tmp_path: Path) -> None:
    big = tmp_path / "big.txt"
    big.write_text("." * (2 << 20) + "\n")
    for command in ("solve", "nonogram"):
        code, out, err = run(command, str(big))
        assert (code, out) == (1, "")
        assert err == f"Error: {big} is larger than 2 MiB, too large for a board or clues\n"


def test_input_is_read_no_further_than_its_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    """/dev/zero never ends: reading stops one byte past the bound (256 MiB; here 1 MiB)."""
    monkeypatch.setattr("autoplay.cli.MAX_INPUT", 1 << 20)
    for command in ("solve", "read", "nonogram"):
        code, out, err = run(command, "/dev/zero")
        assert (code, out, err) == (1, "", "Error: /dev/zero is larger than 1 MiB\n")


def test_no_guess_is_offered_when_a_cell_is_safe() -> None:
    code, out, _ = run("solve", "--json", "-", stdin="1.1\n111\n...\n")
    assert code == 0 and "guess" not in json.loads(out)


def test_without_a_mine_count_solve_guesses_on_the_usual_one_and_says_so() -> None:
    corner = "1........\n" + ".........\n" * 8
    code, out, _ = run("solve", "-", stdin=corner)
    # Taken as a mine in half the layouts, a cell touching no count lost to the 1's
    # neighbours (1/3); at the usual 10 mines of 9x9 it is 9/77.
    assert code == 0 and "a mine with probability 11.7% if the board holds 10 mines (" in out
    assert out.endswith(
        "the mine count is not known, so the guess and odds take it as 10 (the usual count of "
        "a 9x9 board): give the game's own count with --mines N, or a first line 'mines: N'\n")
    _, out, _ = run("solve", "--json", "-", stdin=corner)
    report = json.loads(out)
    assert report["mines"] is None and report["assumed_mines"] == 10
    assert "screenshot" not in report  # a text board
    assert report["guess"]["cell"] not in [[0, 1], [1, 0], [1, 1]]
    _, out, _ = run("solve", "--json", "-", stdin="mines: 10\n" + corner)
    assert "assumed_mines" not in json.loads(out)


def test_more_logging_is_asked_for_before_or_after_the_command(tmp_path: Path) -> None:
    def logged(*arguments: str) -> str:
        command = [sys.executable, "-m", "autoplay", *arguments]
        return subprocess.run(command, capture_output=True, text=True, check=True).stderr

    sim = ["sim", "--preset", "beginner", "--games", "1", "--workers", "1", "--quiet",
           "--db", str(tmp_path / "s.sqlite3")]
    assert "INFO autoplay.player: game" in logged("-v", *sim)
    assert "INFO autoplay.player: game" in logged(*sim, "-v")
    assert "DEBUG autoplay.player: first click" in logged(*sim, "-vv")
    assert "INFO" not in logged(*sim)


@pytest.mark.parametrize(("mines", "shown"), [("1", "<0.1%"), ("3599", ">99.9%")])
def test_a_guess_that_only_rounds_to_0_or_100_percent_says_so(mines: str, shown: str) -> None:
    """1 in 3,600 and 3,599 in 3,600: "0.0%" would say the cell is proven safe."""
    code, out, _ = run("solve", "--mines", mines, "-", stdin=("." * 60 + "\n") * 60)
    assert code == 0 and f", a mine with probability {shown} (" in out


@pytest.mark.parametrize("command", [["solve"], ["nonogram"], ["read"]])
def test_a_folder_given_as_the_input_file_exits_1_like_a_missing_file(
        command: list[str], tmp_path: Path) -> None:
    code, out, err = run(*command, str(tmp_path))
    assert (code, out, err) == (1, "", f"Error: cannot read {tmp_path}: Is a directory\n")


@pytest.mark.parametrize("command", [["nonogram"], ["solve", "--layout"]])
def test_z3_out_of_memory_is_one_error_line(command: list[str], tmp_path: Path) -> None:
    """Z3 bounded to 20 MB runs out while the nonogram's constraints are built, and while
    it looks for a layout of the large board (given without its count, which would have the
    layout counted instead); either way the user reads one line, not z3's traceback."""
    puzzle = tmp_path / "puzzle.txt"
    if command[0] == "nonogram":
        puzzle.write_text(f"{random_clues(60, 5)}\n")
    else:
        puzzle.write_text(large_board(100, 1).split("\n", 1)[1])
    script = ("import sys, z3; z3.set_param('memory_max_size', 20); "
              "from autoplay.cli import cli; cli(sys.argv[1:], prog_name='autoplay')")
    done = subprocess.run([sys.executable, "-c", script, *command, str(puzzle)],
                          check=False, capture_output=True, text=True)
    assert (done.returncode, done.stdout, done.stderr) == (
        1, "", "Error: Z3 gave up: out of memory\n")


def _autoplay() -> str:
    return str(Path(sys.executable).parent / "autoplay")


@pytest.mark.parametrize("arguments", [["solve", "BOARD"], ["solve", "--json", "BOARD"],
                                       ["solve", "--count", "BOARD"], ["--help"],
                                       ["--version"], ["skin", "list"]])
def test_output_to_a_full_disk_is_one_error_line(arguments: list[str], tmp_path: Path) -> None:
    board = tmp_path / "board.txt"
    board.write_text("1?\n??\n")
    command = [_autoplay(), *(str(board) if a == "BOARD" else a for a in arguments)]
    with open("/dev/full", "w") as full:
        done = subprocess.run(command, stdout=full, stderr=subprocess.PIPE, text=True,
                              check=False)
    assert done.returncode == 1
    assert done.stderr == "Error: cannot write to standard output: No space left on device\n"


@pytest.mark.parametrize(("redirect", "message"), [
    ("<&-", "Error: standard input is closed\n"),
    (">&-", "Error: standard output is closed\n"),
])
def test_a_closed_standard_stream_is_one_error_line(redirect: str, message: str) -> None:
    done = subprocess.run(["sh", "-c", f'echo "1?" | "$0" solve - {redirect}', _autoplay()],
                          capture_output=True, text=True, check=False)
    assert (done.returncode, done.stderr) == (1, message)


def test_a_reader_that_stops_reading_ends_the_run_quietly() -> None:
    """As ``autoplay solve big.txt | head`` does: exit 1, and nothing on standard error."""
    board = "mines: 10\n" + ("." * 400 + "\n") * 200  # 80 kB of output, more than a pipe holds
    process = subprocess.Popen([_autoplay(), "solve", "-"], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert process.stdout is not None and process.stdin is not None
    process.stdout.close()
    _, err = process.communicate(board.encode())
    assert (process.returncode, err) == (1, b"")


@pytest.mark.parametrize("unbuffered", ["", "1"])
def test_a_reader_gone_mid_write_ends_the_run_quietly(tmp_path: Path, unbuffered: str) -> None:
    """As ``autoplay solve --json big.txt | head -c 10`` does, with or without
    PYTHONUNBUFFERED: the write in progress when the reader leaves is cut short, which an
    unbuffered stream took for done (exit code 0)."""
    board = tmp_path / "big.txt"
    board.write_text("mines: 0\n" + ("." * 200 + "\n") * 200)  # 0.4 MB of safe cells in JSON
    env = {**os.environ, "PYTHONUNBUFFERED": unbuffered}
    with subprocess.Popen([_autoplay(), "solve", "--json", str(board)],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env) as process:
        assert process.stdout is not None and process.stderr is not None
        assert process.stdout.read(10) == b'{"rows": 2'
        process.stdout.close()
        assert (process.wait(), process.stderr.read()) == (1, b"")


@pytest.mark.parametrize("asked", [["--board", "９x9/10"],
                                   ["--preset", "beginner", "--first-cell", "０,0"]])
def test_digits_other_than_ascii_are_refused(asked: list[str], tmp_path: Path) -> None:
    # Python's int() reads full-width digits, and these were taken as 9 and 0.
    option = asked[-2]
    code, out, err = run("sim", *asked, "--db", str(tmp_path / "s.sqlite3"))
    assert (code, out) == (2, "") and err.startswith(f"Error: Invalid value for '{option}'")


def test_numbers_longer_than_python_reads_are_refused_in_one_line(tmp_path: Path) -> None:
    huge = "9" * 5000
    code, out, err = run("sim", "--board", f"{huge}x1/1", "--db", str(tmp_path / "s.sqlite3"))
    assert (code, out) == (2, "") and err.startswith("Error: Invalid value for '--board'")
    code, out, err = run("sim", "--preset", "beginner", "--first-cell", f"{huge},1",
                         "--db", str(tmp_path / "s.sqlite3"))
    assert (code, out) == (2, "") and err.startswith("Error: Invalid value for '--first-cell'")
    assert err.count("\n") == 1
    assert run("nonogram", "-", stdin=f"rows:\n{huge}\ncolumns:\n1\n") == (
        1, "", (f"Error: line 2: a group longer than any grid's side (at most 200): "
               f"'{huge[:40]}'\n"))


def test_a_suite_named_twice_runs_once() -> None:
    code, out, _ = run("bench", "--suite", "nonogram", "--suite", "nonogram", "--repeat", "1",
                       "--json")
    assert code == 0
    names = [result["name"] for result in json.loads(out)["results"]]
    assert names and len(names) == len(set(names))


def test_sim_runs_no_more_workers_than_cores(tmp_path: Path) -> None:
    # Each game's clock measures it: more workers than cores would slow every game down.
    cores = len(os.sched_getaffinity(0))
    code, out, err = run("sim", "--preset", "beginner", "--games", "3", "--workers", "1000",
                         "--quiet", "--json", "--db", str(tmp_path / "s.sqlite3"))
    assert code == 0 and json.loads(out)["workers"] == min(cores, 3)
    assert err.startswith(f"--workers 1000: {cores} core")


def test_the_default_statistics_folder_is_made_and_a_named_one_must_exist(
        tmp_path: Path) -> None:
    sim = ["sim", "--preset", "beginner", "--games", "1", "--workers", "1", "--quiet"]
    result = CliRunner().invoke(cli, sim, env={"XDG_DATA_HOME": str(tmp_path / "data")})
    assert result.exit_code == 0
    assert result.stdout.endswith(f"recorded in {tmp_path}/data/autoplay/stats.sqlite3\n")
    code, out, err = run(*sim, "--db", str(tmp_path / "typo" / "s.sqlite3"))
    assert (code, out) == (1, "")
    assert err == (f"Error: cannot open statistics file '{tmp_path}/typo/s.sqlite3': there is "
                   f"no folder '{tmp_path}/typo'\n")
    assert not (tmp_path / "typo").exists()


def test_bench_table_is_whole_when_piped() -> None:
    # rich cuts anything but a terminal to 80 columns: the "found" column lost its end.
    code, out, _ = run("bench", "--suite", "nonogram", "--repeat", "1")
    assert code == 0 and "the only grid that fits; the reference found the same" in out


def test_only_the_commands_that_play_offer_more_logging() -> None:
    offered = {command: "--verbose" in run(command, "--help")[1]
               for command in ("play", "demo", "sim", "solve", "read", "stats", "bench",
                               "nonogram")}
    assert offered == {"play": True, "demo": True, "sim": True, "solve": False, "read": False,
                       "stats": False, "bench": False, "nonogram": False}
    assert run("stats", "-vv", "--db", "missing.sqlite3")[0] == 1  # taken, not refused
