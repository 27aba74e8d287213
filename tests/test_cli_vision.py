"""The screenshot side of the command line: ``read``, ``solve IMAGE``, ``skin learn``/``list``."""

from __future__ import annotations

import json
import shutil
import struct
import subprocess
import sys
import zlib
from pathlib import Path

import cv2
import numpy as np
import pytest
from click.testing import CliRunner, Result

from autoplay.board import Board, Cell
from autoplay.cli import cli
from autoplay.errors import UnreadableImage
from autoplay.locate import locate_board
from autoplay.vision import SHIPPED_SKINS, decode_image, load_skins, skin_folders

SCREENSHOTS = Path(__file__).resolve().parent.parent / "fixtures" / "screenshots"
MID = SCREENSHOTS / "sgt-mines" / "16x16-mid.png"


def run(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args), catch_exceptions=False, prog_name="autoplay")


def truth(path: Path) -> str:
    return path.with_name(path.name.replace(".png", ".board.txt")).read_text()


def test_read_prints_the_board_as_text() -> None:
    result = run("read", str(MID))
    assert (result.exit_code, result.stdout, result.stderr) == (0, truth(MID), "")


def test_read_takes_a_screenshot_saved_in_greyscale(tmp_path: Path) -> None:
    path = SCREENSHOTS / "xdemineur" / "12x9-lost.png"
    grey = tmp_path / "grey.png"
    cv2.imwrite(str(grey), cv2.imread(str(path), cv2.IMREAD_GRAYSCALE))
    result = run("read", str(grey))
    assert (result.exit_code, result.stdout, result.stderr) == (0, truth(path), "")


def test_read_json_says_where_the_board_is() -> None:
    result = run("read", "--json", str(MID))
    report = json.loads(result.stdout)
    assert report == {
        "skin": "sgt-mines", "rows": 16, "cols": 16, "origin": [30.0, 55.0],
        "pitch": [20.0, 20.0], "board": truth(MID).splitlines(), "unrecognized": [],
        "closest": [], "edges": [], "others": [],
    }


def test_a_board_that_reaches_the_images_edge_is_read_with_a_warning(tmp_path: Path) -> None:
    """Cut at a line of cells, the board cannot be told from one cropped to its cells, and
    a count next to the cut may have mines beyond it: here solve finds no layout at all."""
    image = cv2.imread(str(SCREENSHOTS / "sgt-mines" / "9x9-mid.png"))
    x0, y0, x1, y1 = locate_board(image, load_skins("sgt-mines")[0]).box()
    cut = tmp_path / "cut.png"
    cv2.imwrite(str(cut), image[:, :x1 - 60])  # three columns of 20 pixels off
    result = run("read", str(cut))
    assert result.exit_code == 0
    assert result.stdout.splitlines() == [row[:6] for row in truth(MID.with_name(
        "9x9-mid.png")).splitlines()]
    assert result.stderr == ("warning: the board reaches the image's right edge: if the image "
                             "cuts it there, cells beyond are not shown, and what is proven "
                             "next to the cut may be false\n")
    as_json = run("read", "--json", str(cut))
    assert (json.loads(as_json.stdout)["edges"], as_json.stderr) == (["right"], result.stderr)
    solved = run("solve", str(cut))
    assert solved.exit_code == 1
    assert solved.stderr.startswith("warning: the board reaches the image's right edge")
    for extra in ([], ["--layout"], ["--count"]):  # a JSON report says so too
        report = json.loads(run("solve", "--json", *extra, str(cut)).stdout)
        assert report["screenshot"] == {"skin": "sgt-mines", "edges": ["right"],
                                        "others": [], "mines_from": None}
    tight = tmp_path / "tight.png"
    cv2.imwrite(str(tight), image[y0:y1, x0:x1])
    assert "the image's top, bottom, left and right edges" in run("read", str(tight)).stderr


@pytest.mark.parametrize(("left", "right", "read", "other"), [
    ("sgt-mines/9x9-mid", "sgt-mines/16x16-mid", "sgt-mines/16x16-mid",
     ("sgt-mines", 9, 9, 30, 75)),
    ("gnome-mines/8x8-mid", "xbomb/16x16-mid", "gnome-mines/8x8-mid",
     ("xbomb", 16, 16, 656, 49))])
def test_a_second_board_in_the_image_is_named(left: str, right: str, read: str,
                                              other: tuple[str, int, int, int, int],
                                              tmp_path: Path) -> None:
    """Two windows side by side: the better board is read, and the other named, as the
    search met it (it stops at the first board matched exactly, so it may not)."""
    first, second = (cv2.imread(str(SCREENSHOTS / f"{name}.png")) for name in (left, right))
    height = max(first.shape[0], second.shape[0]) + 40
    both = np.full((height, first.shape[1] + 40 + second.shape[1], 3), 60, np.uint8)
    both[20:20 + first.shape[0], :first.shape[1]] = first
    both[20:20 + second.shape[0], first.shape[1] + 40:] = second
    path = tmp_path / "both.png"
    cv2.imwrite(str(path), both)
    skin, cols, rows, x, y = other
    result = run("read", str(path))
    assert (result.exit_code, result.stdout) == (0, truth(SCREENSHOTS / f"{read}.png"))
    assert result.stderr.startswith(f"warning: the image shows another board, {skin} "
                                    f"{cols}x{rows} at x={x}, y={y}, besides the "
                                    f"{read.replace('/', ' ').split('-mid')[0]} at x=")
    assert result.stderr.endswith(", which is read: crop the image to the board to read\n")
    as_json = json.loads(run("read", "--json", str(path)).stdout)
    assert [(o["skin"], o["cols"], o["rows"], *o["origin"]) for o in as_json["others"]] == [
        other]
    solved = run("solve", "--json", str(path))
    assert json.loads(solved.stdout)["screenshot"]["others"] == as_json["others"]
    assert solved.stderr == result.stderr


def test_read_with_a_forced_skin_and_an_unknown_one() -> None:
    path = SCREENSHOTS / "xbomb" / "8x8-lost.png"
    assert run("read", "--skin", "xbomb", str(path)).stdout == truth(path)
    result = run("read", "--skin", "nope", str(path))
    assert result.exit_code == 2
    assert result.stderr == ("Error: Invalid value for '--skin': no skin called 'nope' "
                             "(installed: ace-minesweeper, gnome-mines, sgt-mines, xbomb, "
                             "xdemineur) (see 'autoplay read --help')\n")


def test_read_reports_cells_it_cannot_match(tmp_path: Path) -> None:
    image = decode_image(MID.read_bytes())
    x0, y0, x1, y1 = locate_board(image, load_skins("sgt-mines")[0]).cell_box(Cell(2, 3))
    image[y0 + 4:y1 - 4, x0 + 4:x1 - 4] = (255, 0, 255)
    path = tmp_path / "painted.png"
    cv2.imwrite(str(path), image)
    result = run("read", str(path))
    rows = truth(MID).splitlines()
    rows[2] = rows[2][:3] + "?" + rows[2][4:]
    assert result.exit_code == 0
    assert result.stdout == "\n".join(rows) + "\n"
    assert result.stderr.startswith("1 cell not recognised (shown as '?'): (2, 3) looks most "
                                    "like ")
    report = json.loads(run("read", "--json", str(path)).stdout)
    assert report["unrecognized"] == [[2, 3]]
    assert report["closest"][0]["cell"] == [2, 3] and report["closest"][0]["distance"] > 0


@pytest.mark.parametrize("args", [[], ["--json"]])
def test_solving_a_screenshot_is_solving_its_board(args: list[str], tmp_path: Path) -> None:
    text = tmp_path / "board.txt"
    text.write_text(truth(MID))
    from_image = run("solve", *args, str(MID))
    from_text = run("solve", *args, str(text))
    assert from_image.exit_code == from_text.exit_code == 0
    if args:  # the same report, and what the screenshot adds
        report = json.loads(from_image.stdout)
        assert report.pop("screenshot") == {"skin": "sgt-mines", "edges": [], "others": [],
                                            "mines_from": None}
        assert report == json.loads(from_text.stdout)
    else:
        assert from_image.stdout == from_text.stdout


def test_solve_knows_an_image_by_its_bytes_not_its_name(tmp_path: Path) -> None:
    disguised = tmp_path / "board.txt"
    disguised.write_bytes(MID.read_bytes())
    assert run("solve", str(disguised)).stdout == run("solve", str(MID)).stdout


def test_solve_refuses_unrecognised_cells_unless_allowed(tmp_path: Path) -> None:
    image = decode_image(MID.read_bytes())
    geometry = locate_board(image, load_skins("sgt-mines")[0])
    x0, y0, x1, y1 = geometry.cell_box(Cell(0, 0))
    image[y0 + 4:y1 - 4, x0 + 4:x1 - 4] = (255, 0, 255)
    path = tmp_path / "painted.png"
    cv2.imwrite(str(path), image)
    refused = run("solve", str(path))
    assert refused.exit_code == 1
    assert refused.stderr.startswith(f"Error: 1 cell of {path} not recognised "
                                     "(--allow-unknown takes them as unopened): (0, 0) looks ")
    allowed = run("solve", "--allow-unknown", "--json", str(path))
    board = Board.parse(truth(MID)).with_states({Cell(0, 0): -1})
    text = tmp_path / "board.txt"
    text.write_text(str(board))
    report = json.loads(allowed.stdout)
    del report["screenshot"]
    assert report == json.loads(run("solve", "--json", str(text)).stdout)


def test_solve_annotates_the_screenshot(tmp_path: Path) -> None:
    out = tmp_path / "proof.png"
    result = run("solve", "--json", "--annotate", str(out), str(MID))
    report = json.loads(result.stdout)
    original = decode_image(MID.read_bytes())
    drawn = decode_image(out.read_bytes())
    geometry = locate_board(original, load_skins("sgt-mines")[0])
    assert drawn.shape == original.shape and report["safe"] and report["mine"]
    for key in ("safe", "mine"):
        for row, col in report[key]:
            x0, y0, x1, y1 = geometry.cell_box(Cell(row, col))
            assert not np.array_equal(drawn[y0:y1, x0:x1], original[y0:y1, x0:x1])
    marked = {tuple(cell) for cell in report["safe"] + report["mine"]}
    untouched = [c for c in Board.parse(truth(MID)).cells() if (c.row, c.col) not in marked]
    for cell in untouched:
        x0, y0, x1, y1 = geometry.cell_box(cell)
        assert np.array_equal(drawn[y0:y1, x0:x1], original[y0:y1, x0:x1])


def test_the_annotation_is_written_though_the_reader_of_the_output_goes(tmp_path: Path) -> None:
    """As with ``| head -1``: the image is written before the first line, whose write
    then ends the run quietly with exit code 1."""
    out = tmp_path / "proof.png"
    process = subprocess.Popen([sys.executable, "-m", "autoplay", "solve", "--annotate",
                                str(out), str(MID)], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE)
    assert process.stdout is not None
    process.stdout.close()  # the reader gone before a word
    _, err = process.communicate(timeout=60)
    assert (process.returncode, err) == (1, b"")
    assert decode_image(out.read_bytes()).shape == decode_image(MID.read_bytes()).shape


def test_annotate_never_writes_over_the_screenshot_it_reads(tmp_path: Path) -> None:
    shot = tmp_path / "mine.png"
    shutil.copyfile(MID, shot)
    (tmp_path / "link.png").symlink_to(shot)
    for out in (shot, tmp_path / "link.png"):
        result = run("solve", "--annotate", str(out), str(shot))
        assert (result.exit_code, result.stdout) == (2, "")
        assert result.stderr == (f"Error: --annotate {out} would write over the screenshot "
                                 "read (see 'autoplay solve --help')\n")
    assert shot.read_bytes() == MID.read_bytes()


def test_annotate_needs_a_screenshot(tmp_path: Path) -> None:
    text = tmp_path / "board.txt"
    text.write_text("1.\n..\n")
    result = run("solve", "--annotate", str(tmp_path / "out.png"), str(text))
    assert result.exit_code == 2
    assert "--annotate needs a screenshot, not a text board" in result.stderr


def test_a_truncated_image_is_one_error_line(tmp_path: Path) -> None:
    cut = tmp_path / "cut.png"
    cut.write_bytes(MID.read_bytes()[:3000])
    for command in ("read", "solve"):
        result = run(command, str(cut))
        assert (result.exit_code, result.stdout) == (1, "")
        assert result.stderr == f"Error: {cut} is a damaged or truncated image\n"


@pytest.mark.parametrize(("width", "height", "what"), [
    (100_000, 100_000, "the image"),
    (12_000, 9_000, "the 12000x9000 image"), (10_000, 4_001, "the 10000x4001 image")])
def test_an_image_declaring_too_many_pixels_is_refused_before_it_is_decoded(
        width: int, height: int, what: str, tmp_path: Path) -> None:
    """A PNG header of a few bytes may declare a gigapixel: refused from the header, which
    Pillow reads, rather than after OpenCV has decoded it (25000x25000 took 12 s and 3.75 GB)
    or given up (beyond its own limit of a gigapixel). Past Pillow's limit the header's size
    is not told."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return (struct.pack(">I", len(data)) + kind + data
                + struct.pack(">I", zlib.crc32(kind + data)))

    bomb = tmp_path / "bomb.png"
    bomb.write_bytes(b"\x89PNG\r\n\x1a\n"
                     + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
                     + chunk(b"IDAT", zlib.compress(bytes(16))) + chunk(b"IEND", b""))
    board = tmp_path / "board.txt"
    board.write_text("?1\n")
    for args in (("read", str(bomb)), ("solve", str(bomb)),
                 ("skin", "learn", str(bomb), "--board", str(board), "--name", "bomb")):
        result = run(*args)
        assert (result.exit_code, result.stdout) == (1, "")
        assert result.stderr == (f"Error: {what} is larger than autoplay searches for a board "
                                 "(40 megapixels): crop it to the game\n")
    if width * height > 2**30:  # and decoded all the same, OpenCV refuses it
        with pytest.raises(UnreadableImage, match="its header claims more pixels than OpenCV "
                                                  "decodes"):
            decode_image(bomb.read_bytes())


def test_a_file_that_is_not_an_image_is_one_error_line(tmp_path: Path) -> None:
    data = tmp_path / "data.bin"
    data.write_bytes(bytes(range(256)) * 4)
    result = run("read", str(data))
    assert (result.exit_code, result.stdout) == (1, "")
    assert result.stderr == (f"Error: {data} is not an image (not PNG, JPEG, BMP, GIF, TIFF "
                             "or WebP data)\n")
    result = run("solve", str(data))
    assert result.stderr == f"Error: {data} is not a text file (not UTF-8)\n"
    result = CliRunner().invoke(cli, ["read", "-"], input=b"hello", prog_name="autoplay")
    assert result.stderr == ("Error: standard input is not an image (not PNG, JPEG, BMP, GIF, "
                             "TIFF or WebP data)\n")
    result = CliRunner().invoke(cli, ["read", "-"], input=b"", prog_name="autoplay")
    assert result.stderr == "Error: standard input is empty, not an image\n"
    named = tmp_path / "shot.PNG"  # named as an image: told so, not as a faulty text board
    named.write_text("hello\n")
    result = run("solve", str(named))
    assert result.exit_code == 1
    assert result.stderr == (f"Error: {named} is not an image (not PNG, JPEG, BMP, GIF, TIFF "
                             "or WebP data)\n")


@pytest.mark.parametrize(("picture", "why"), [
    (np.full((300, 400, 3), 200, np.uint8), (": the image has too little contrast for one "
                                             "(its grey levels span 0; every cell of these "
                                             "skins spans 23 or more)")),
    (np.random.default_rng(3).integers(0, 256, (300, 400, 3), np.uint8), ""),
], ids=["blank", "noise"])
def test_an_image_without_a_board_is_one_error_line(picture: np.ndarray, why: str,
                                                    tmp_path: Path) -> None:
    path = tmp_path / "picture.png"
    cv2.imwrite(str(path), picture)
    result = run("read", str(path))
    assert result.exit_code == 1
    assert result.stderr == ("Error: no Minesweeper board found in the 400x300 image (skins "
                             "tried: ace-minesweeper, gnome-mines, sgt-mines, xbomb, "
                             f"xdemineur){why}\n")


@pytest.mark.parametrize("command", [["read"], ["skin", "learn"]])
def test_an_image_too_large_to_search_is_refused_at_once(command: list[str], tmp_path: Path,
                                                         learned_skins: Path) -> None:
    huge = tmp_path / "huge.png"
    cv2.imwrite(str(huge), np.zeros((5000, 8001, 3), np.uint8))
    learning = ["--board", str(SCREENSHOTS / "xdemineur" / "12x9-mid.board.txt"),
                "--name", "huge"] if command[0] == "skin" else []
    result = run(*command, str(huge), *learning)
    assert result.exit_code == 1
    assert result.stderr == ("Error: the 8001x5000 image is larger than autoplay searches for a "
                             "board (40 megapixels): crop it to the game\n")


def test_image_and_board_cannot_both_come_from_standard_input() -> None:
    result = run("skin", "learn", "-", "--board", "-", "--name", "both")
    assert (result.exit_code, result.stderr) == (
        2, ("Error: IMAGE and --board cannot both be standard input ('-') (see 'autoplay skin "
           "learn --help')\n"))


def test_a_missing_file_is_one_error_line(tmp_path: Path) -> None:
    gone = tmp_path / "gone.png"
    result = run("read", str(gone))
    assert result.exit_code == 1
    assert result.stderr == f"Error: cannot read {gone}: No such file or directory\n"


def test_learn_a_skin_then_read_with_it(learned_skins: Path) -> None:
    image = SCREENSHOTS / "xdemineur" / "30x16-lost.png"
    result = run("skin", "learn", str(image), "--board", str(image).replace(".png", ".board.txt"),
                 "--name", "my-game")
    assert result.exit_code == 0, result.stderr
    assert result.stdout.startswith("learned skin 'my-game' (")
    assert result.stdout.endswith(f") in {learned_skins / 'my-game'}\n")
    other = SCREENSHOTS / "xdemineur" / "12x9-mid.png"
    # 12x9-mid shows a question mark, which 30x16-lost never does.
    assert "?" in run("read", "--skin", "my-game", str(other)).stdout
    second = SCREENSHOTS / "xdemineur" / "12x9-lost.png"
    read = run("read", "--skin", "my-game", "--json", str(second))
    assert json.loads(read.stdout)["board"] == truth(second).splitlines()
    listed = run("skin", "list").stdout.splitlines()
    assert f"my-game\t{learned_skins / 'my-game'}" in listed
    assert f"sgt-mines\t{SHIPPED_SKINS / 'sgt-mines'}" in listed


@pytest.mark.parametrize("name", ["sgt-mines", "my-game"])
def test_learning_a_skin_under_a_name_installed_needs_replace(learned_skins: Path,
                                                              name: str) -> None:
    """A shipped skin or one learned before is put aside only when asked: learned from
    another game under its name, it stops that game's screenshots being read."""
    image = SCREENSHOTS / "xdemineur" / "30x16-lost.png"
    learn = ("skin", "learn", str(image), "--board", str(image).replace(".png", ".board.txt"),
             "--name", name)
    if name == "my-game":
        assert run(*learn).exit_code == 0
    installed = skin_folders()[name]
    refused = run(*learn)
    assert (refused.exit_code, refused.stdout) == (2, "")
    assert refused.stderr == (f"Error: Invalid value for '--name': a skin called {name!r} is "
                              f"installed, in {installed} (--replace puts the new one in its "
                              f"place) (see 'autoplay skin learn --help')\n")
    assert skin_folders()[name] == installed
    replaced = run(*learn, "--replace")
    assert replaced.exit_code == 0, replaced.stderr
    assert replaced.stdout.endswith(f") in {learned_skins / name}, " + (
        "over the one learned before\n" if name == "my-game"
        else f"in place of the one in {installed}\n"))
    assert skin_folders()[name] == learned_skins / name


@pytest.mark.parametrize(("meta", "why"), [
    ("{not json", "no readable skin.json"),
    ('{"name": "broken", "pitch": [0, 0]}', "its skin.json gives the pitch [0.0, 0.0], not two"),
])
def test_a_learned_skin_that_cannot_be_loaded_is_left_out(learned_skins: Path, meta: str,
                                                         why: str,
                                                         caplog: pytest.LogCaptureFixture
                                                         ) -> None:
    # It stopped every screenshot from being read, whatever its game (a pitch of 0 by a
    # division by it).
    (learned_skins / "broken").mkdir(parents=True)
    (learned_skins / "broken" / "skin.json").write_text(meta)
    result = run("read", str(MID))
    assert (result.exit_code, result.stdout) == (0, truth(MID))
    assert f"broken is not a skin: {why}" in caplog.text
    assert "left out" in caplog.text
    listed = run("skin", "list").stdout.splitlines()
    assert any(line.startswith(f"broken\t{learned_skins / 'broken'}\t(left out: ")
               for line in listed)
    assert f"sgt-mines\t{SHIPPED_SKINS / 'sgt-mines'}" in listed
    assert run("read", "--skin", "broken", str(MID)).exit_code == 1


def test_learning_refuses_a_board_the_screenshot_does_not_show(learned_skins: Path) -> None:
    image = SCREENSHOTS / "xdemineur" / "12x9-lost.png"
    # The same game's board earlier on: same size, other cells.
    result = run("skin", "learn", str(image), "--board",
                 str(SCREENSHOTS / "xdemineur" / "12x9-mid.board.txt"), "--name", "wrong")
    assert result.exit_code == 1
    assert result.stderr.startswith("Error: the board does not match the screenshot: ")
    assert result.stderr.count("\n") == 1
    assert not (learned_skins / "wrong").exists()


def test_learning_refuses_a_board_smaller_than_the_one_shown(learned_skins: Path,
                                                              tmp_path: Path) -> None:
    """Two cells fit somewhere in any screenshot, and read back there with the templates
    cut from them: the skin must also find the board the screenshot shows, as read does."""
    corner = tmp_path / "corner.txt"
    corner.write_text("1.\n..\n")
    result = run("skin", "learn", str(SCREENSHOTS / "xdemineur" / "12x9-lost.png"),
                 "--board", str(corner), "--name", "corner")
    assert (result.exit_code, result.stderr) == (1, (
        "Error: the board does not match the screenshot: its cells fit only as 20.8x59.2 "
        "pixel rectangles, and a Minesweeper game's cells are square\n"))
    assert not (learned_skins / "corner").exists()


def test_learning_refuses_a_bad_name(tmp_path: Path) -> None:
    image = SCREENSHOTS / "xbomb" / "8x8-lost.png"
    result = run("skin", "learn", str(image), "--board",
                 str(image).replace(".png", ".board.txt"), "--name", "../escape")
    assert result.exit_code == 2
    assert "'../escape' is not a plain name" in result.stderr


def test_a_damaged_image_is_one_error_line_even_from_libpng(tmp_path: Path) -> None:
    """libpng writes its own complaint to the process's stderr; the command keeps it out."""
    damaged = bytearray(MID.read_bytes())
    damaged[300:600] = bytes(300)
    path = tmp_path / "damaged.png"
    path.write_bytes(bytes(damaged))
    result = subprocess.run([sys.executable, "-m", "autoplay", "read", str(path)],
                            capture_output=True, text=True, check=False)
    assert (result.returncode, result.stdout) == (1, "")
    assert result.stderr == f"Error: {path} is a damaged or truncated image\n"


@pytest.mark.parametrize(("name", "mines"), [("xbomb/8x8-new", 10),
                                             ("ace-minesweeper/11x11-counts-3-lost", 20)])
def test_a_screenshot_of_a_fixed_level_is_solved_with_that_levels_mine_count(
        name: str, mines: int) -> None:
    result = run("solve", "--json", str(SCREENSHOTS / f"{name}.png"))
    report = json.loads(result.stdout)
    assert report["mines"] == mines and "assumed_mines" not in report
    assert report["screenshot"]["mines_from"] == "level"
    said = run("solve", str(SCREENSHOTS / f"{name}.png")).stderr
    assert said.startswith(f"{mines} mines: the {name.split('/')[0]} board's size is one of "
                           f"its levels")
    layout = run("solve", "--layout", str(SCREENSHOTS / f"{name}.png")).stdout
    assert str(Board.parse(layout)).count("*") == mines  # a board alone, read back as one
    given = json.loads(run("solve", "--json", "--mines", "11",
                           str(SCREENSHOTS / "xbomb/8x8-new.png")).stdout)
    assert given["mines"] == 11  # what the user says goes
    assert given["screenshot"]["mines_from"] == "option"
