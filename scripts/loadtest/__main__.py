"""``python -m scripts.loadtest``: see the package's documentation."""

import sys

from .run import main

sys.exit(main())
