"""`python -m grader` runs the command line."""

import sys

from grader.cli import main

sys.exit(main())
