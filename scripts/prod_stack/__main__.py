"""``python -m scripts.prod_stack``: see the package's documentation."""

import sys

from .run import main

sys.exit(main())
