"""Command line: `python -m experiments validate FILE...`, `... runs FILE`, `... cut FILE`, `... metrics` and
`... check-report DIR`."""

import signal
import sys

from experiments.cli import main

signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # `... runs FILE | head` ends quietly
sys.exit(main())
