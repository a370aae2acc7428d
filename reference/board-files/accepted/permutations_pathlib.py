"""Every ordering of the columns, filtered: 8! = 40,320 boards is small. pathlib for the files."""

import sys
from itertools import permutations
from pathlib import Path

try:
    rows = Path(sys.argv[1]).read_text().splitlines()
except OSError as error:
    sys.exit(f"{sys.argv[1]}: {error}")  # the message goes to stderr, the status is 1

good = [
    cols for cols in permutations(range(8))
    if all(rows[r][c] == "." for r, c in enumerate(cols))
    and len({r - c for r, c in enumerate(cols)}) == 8
    and len({r + c for r, c in enumerate(cols)}) == 8
]
Path(sys.argv[2]).write_text("".join(" ".join(str(c + 1) for c in cols) + "\n" for cols in good))
print(len(good))
