"""``python -m autoplay``: the same as the ``autoplay`` command."""

from autoplay.cli import main

main()
