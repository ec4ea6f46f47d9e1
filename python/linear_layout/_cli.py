"""The ``linear-layout`` console script: the command line, run in-process.

The wheel carries the whole command (search, predict, scan, explain, ...)
in its native extension, so ``pip install linear-layout`` puts
``linear-layout`` on the PATH with nothing else to build.
"""

from __future__ import annotations

import signal
import sys

from linear_layout import _native


def main() -> None:
    """Run ``linear-layout`` with this process's arguments and exit with its status."""
    # Ctrl-C ends the command at once, as it ends the native binary (the
    # interpreter would only see it once the command returned).
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    sys.exit(_native.run_cli(["linear-layout", *sys.argv[1:]]))


if __name__ == "__main__":
    main()
