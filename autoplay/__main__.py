"""The ``autoplay`` command's entry point, and ``python -m autoplay``.

Importing the command line takes a few tenths of a second (Z3, OpenCV, NumPy). Ctrl-C in
that time stops the run as it would later, with its one word and exit status, not with a
traceback.
"""

from __future__ import annotations

import signal
import sys

from autoplay.errors import STOPS


def main() -> None:
    """Run the command line (:func:`autoplay.cli.main`) once it is imported."""
    try:
        from autoplay.cli import main as run  # the slow import, guarded
    except KeyboardInterrupt:
        print(STOPS[signal.SIGINT], file=sys.stderr)
        sys.exit(128 + signal.SIGINT)
    run()


if __name__ == "__main__":
    main()
