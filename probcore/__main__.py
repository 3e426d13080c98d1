"""``python -m probcore``: the probcore command (probcore.cli)."""

import sys

from probcore.cli import main

sys.exit(main())
