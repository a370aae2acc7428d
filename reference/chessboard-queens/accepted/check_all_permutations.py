"""A different style that is fine at this size: every ordering of the 8 columns (8! = 40320),
kept when no square is reserved and no two queens share a diagonal."""
from itertools import permutations

board = [input().strip() for _ in range(8)]
ways = 0
for cols in permutations(range(8)):
    if any(board[r][c] == "*" for r, c in enumerate(cols)):
        continue
    if len({r - c for r, c in enumerate(cols)}) == 8 and len({r + c for r, c in enumerate(cols)}) == 8:
        ways += 1
print(ways)
