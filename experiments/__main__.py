"""Command line: `python -m experiments validate FILE...` and `python -m experiments runs FILE`."""

import signal
import sys

from experiments.cli import main

signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # `... runs FILE | head` ends quietly
sys.exit(main())
