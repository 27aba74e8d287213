"""Time locating and reading screenshots, to compare two commits image by image.

How docs/reading.md's figures for GNOME Mines' windows were measured. ``time`` reads each
image once with every shipped skin (``locate.read_screenshot``, in this process: Python's
start and the image's decoding left out) and writes a JSON object of image: [seconds,
what was read], the board as a short hash, or the error. Run it in turns on each commit,
with ``PYTHONPATH`` set to a worktree of the older one, so that the machine's load falls
on both alike; ``compare`` prints each image's median seconds on each side, their ratio,
and whether every run read the same, then the median over the images of each side:

    for run in 1 2 3; do
      PYTHONPATH=/tmp/old python tools/read_times.py time old-$run.json fixtures/window-sizes/*.png
      python tools/read_times.py time new-$run.json fixtures/window-sizes/*.png
    done
    python tools/read_times.py compare old-*.json --against new-*.json
"""

from __future__ import annotations

import argparse
import hashlib
import json
import statistics
import time
from pathlib import Path

from autoplay.errors import AutoplayError
from autoplay.locate import read_screenshot
from autoplay.vision import decode_image, load_skins


def time_images(out: Path, images: list[Path]) -> None:
    """Read each image once, and write its seconds and reading to ``out``."""
    skins = load_skins(learned=False)
    times: dict[str, tuple[float, str]] = {}
    for path in images:
        image = decode_image(path.read_bytes(), path.name)
        start = time.perf_counter()
        try:
            reading = read_screenshot(image, skins)
            read = (hashlib.sha256(str(reading.board).encode()).hexdigest()[:8]
                    + f", {len(reading.unrecognized)} not recognised")
        except AutoplayError as error:
            read = f"error: {error}"
        times[str(path)] = (round(time.perf_counter() - start, 3), read)
        print(f"{times[str(path)][0]:7.2f} s  {path}: {read}", flush=True)
    out.write_text(json.dumps(times, indent=1))


def compare(before: list[Path], after: list[Path]) -> None:
    """Each image's median seconds before and after, the ratio, and the readings; then the
    medians of those over every image, and the range of the ratios."""
    runs = [[json.loads(path.read_text()) for path in side] for side in (before, after)]
    print(f"{'before':>8} {'after':>8} {'ratio':>7}  image")
    medians = []
    for image in runs[0][0]:
        old, new = (statistics.median(run[image][0] for run in side) for side in runs)
        medians.append((old, new))
        reads = {run[image][1] for side in runs for run in side}
        same = "" if len(reads) == 1 else f"  READ DIFFERENTLY: {sorted(reads)}"
        print(f"{old:8.2f} {new:8.2f} {old / new:6.2f}x  {image}{same}")
    ratios = [old / new for old, new in medians]
    old, new = (statistics.median(side) for side in zip(*medians))
    print(f"{old:8.2f} {new:8.2f} {old / new:6.2f}x  the median of {len(medians)} "
          f"image{'s' if len(medians) > 1 else ''}, each {min(ratios):.2f}x to "
          f"{max(ratios):.2f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    timing = commands.add_parser("time", help="read each image once, timed")
    timing.add_argument("out", type=Path, help="the JSON file to write")
    timing.add_argument("images", type=Path, nargs="+")
    comparing = commands.add_parser("compare", help="medians of two sets of runs")
    comparing.add_argument("before", type=Path, nargs="+")
    comparing.add_argument("--against", type=Path, nargs="+", required=True)
    args = parser.parse_args()
    if args.command == "time":
        time_images(args.out, args.images)
    else:
        compare(args.before, args.against)


if __name__ == "__main__":
    main()
