'''A class for the similarity tests, written here: copies of one count-queens solution planted under other
names (renamed, reordered, re-commented, part of a function moved to a helper), and solutions written
independently of each other and of the references.'''

from __future__ import annotations

from pathlib import Path

ORIGINAL = '''\
def is_safe(row, col, used_cols, used_down, used_up):
    """True when no queen placed so far attacks (row, col)."""
    return col not in used_cols and (row - col) not in used_down and (row + col) not in used_up


def count_from(row, n, used_cols, used_down, used_up):
    if row == n:
        return 1
    ways = 0
    for col in range(n):
        if not is_safe(row, col, used_cols, used_down, used_up):
            continue
        used_cols.append(col)
        used_down.append(row - col)
        used_up.append(row + col)
        ways += count_from(row + 1, n, used_cols, used_down, used_up)
        used_cols.pop()
        used_down.pop()
        used_up.pop()
    return ways


def count_queens(n):
    # start on the top row with an empty board
    return count_from(0, n, [], [], [])
'''

PLANTED = {
    "original": ORIGINAL,
    "renamed": '''\
def ok(r, c, cs, ds, us):
    """True when no queen placed so far attacks (row, col)."""
    return c not in cs and (r - c) not in ds and (r + c) not in us


def go(r, size, cs, ds, us):
    if r == size:
        return 1
    total = 0
    for c in range(size):
        if not ok(r, c, cs, ds, us):
            continue
        cs.append(c)
        ds.append(r - c)
        us.append(r + c)
        total += go(r + 1, size, cs, ds, us)
        cs.pop()
        ds.pop()
        us.pop()
    return total


def count_queens(size):
    # start on the top row with an empty board
    return go(0, size, [], [], [])
''',
    "reordered": '''\
def count_queens(n):
    return count_from(0, n, [], [], [])


def count_from(row, n, used_cols, used_down, used_up):
    if row == n: return 1
    ways = 0
    for col in range( n ):
        if not is_safe(row, col, used_cols, used_down, used_up): continue
        used_cols.append(col)
        used_down.append(row - col)
        used_up.append(row + col)
        ways += count_from(row + 1, n, used_cols, used_down, used_up)
        used_cols.pop()
        used_down.pop()
        used_up.pop()
    return ways


def is_safe(row, col, used_cols, used_down, used_up):
    return col not in used_cols and (row - col) not in used_down and (row + col) not in used_up
''',
    "recommented": '''\
# Homework 4: count the queens.
# I go row by row and keep lists of what is taken.

def is_safe(row, col, used_cols, used_down, used_up):
    """Can a queen go on this square?"""
    # three checks: the column and both diagonals
    return col not in used_cols and (row - col) not in used_down and (row + col) not in used_up



def count_from(row, n, used_cols, used_down, used_up):
    """How many ways to finish the board from this row down."""
    if row == n:   # the board is full
        return 1
    ways = 0
    for col in range(n):
        if not is_safe(row, col, used_cols, used_down, used_up):
            continue  # attacked, try the next square
        # put the queen down
        used_cols.append(col)
        used_down.append(row - col)
        used_up.append(row + col)
        ways += count_from(row + 1, n, used_cols, used_down, used_up)
        # and take it back
        used_cols.pop()
        used_down.pop()
        used_up.pop()
    return ways


def count_queens(n):
    return count_from(0, n, [], [], [])
''',
    "helper": '''\
def is_safe(row, col, used_cols, used_down, used_up):
    """True when no queen placed so far attacks (row, col)."""
    return col not in used_cols and (row - col) not in used_down and (row + col) not in used_up


def try_square(row, col, n, used_cols, used_down, used_up):
    used_cols.append(col)
    used_down.append(row - col)
    used_up.append(row + col)
    ways = count_from(row + 1, n, used_cols, used_down, used_up)
    used_cols.pop()
    used_down.pop()
    used_up.pop()
    return ways


def count_from(row, n, used_cols, used_down, used_up):
    if row == n:
        return 1
    ways = 0
    for col in range(n):
        if not is_safe(row, col, used_cols, used_down, used_up):
            continue
        ways += try_square(row, col, n, used_cols, used_down, used_up)
    return ways


def count_queens(n):
    # start on the top row with an empty board
    return count_from(0, n, [], [], [])
''',
}

INDEPENDENT = {
    "stack": '''\
def count_queens(n):
    total = 0
    stack = [[]]
    while stack:
        board = stack.pop()
        row = len(board)
        if row == n:
            total += 1
            continue
        for col in range(n):
            if all(c != col and abs(c - col) != row - r for r, c in enumerate(board)):
                stack.append(board + [col])
    return total
''',
    "pairs": '''\
def attacks(a, b):
    (r1, c1), (r2, c2) = a, b
    return c1 == c2 or r1 - c1 == r2 - c2 or r1 + c1 == r2 + c2


def count_queens(n):
    def extend(queens):
        if len(queens) == n:
            return 1
        row = len(queens)
        return sum(extend(queens + [(row, col)]) for col in range(n)
                   if not any(attacks((row, col), q) for q in queens))

    return extend([])
''',
    "board_class": '''\
class Board:
    def __init__(self, size):
        self.size = size
        self.columns = [False] * size
        self.rising = [False] * (2 * size)
        self.falling = [False] * (2 * size)

    def free(self, r, c):
        return not (self.columns[c] or self.rising[r + c] or self.falling[r - c + self.size])

    def flip(self, r, c):
        self.columns[c] = not self.columns[c]
        self.rising[r + c] = not self.rising[r + c]
        self.falling[r - c + self.size] = not self.falling[r - c + self.size]

    def solutions(self, r=0):
        if r == self.size:
            return 1
        found = 0
        for c in range(self.size):
            if self.free(r, c):
                self.flip(r, c)
                found += self.solutions(r + 1)
                self.flip(r, c)
        return found


def count_queens(n):
    return Board(n).solutions()
''',
    "generator": '''\
def placements(n, row=0, taken=()):
    if row == n:
        yield taken
        return
    for col in range(n):
        if col in taken:
            continue
        if any(abs(col - other) == row - r for r, other in enumerate(taken)):
            continue
        yield from placements(n, row + 1, taken + (col,))


def count_queens(n):
    return sum(1 for _ in placements(n))
''',
    "bits": '''\
def count_queens(n):
    mask = (1 << n) - 1
    count = 0
    pending = [(0, 0, 0)]
    while pending:
        cols, left, right = pending.pop()
        if cols == mask:
            count += 1
            continue
        options = mask & ~(cols | left | right)
        while options:
            low = options & -options
            options ^= low
            pending.append((cols | low, (left | low) << 1 & mask, (right | low) >> 1))
    return count
''',
}


def write_class(root: Path, files: dict[str, str], name: str = "count-queens.py") -> Path:
    """One folder per student, each holding one file."""
    for student, source in files.items():
        folder = root / student
        folder.mkdir(parents=True)
        (folder / name).write_text(source, encoding="utf-8")
    return root
