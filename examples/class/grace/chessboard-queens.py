from itertools import permutations

board = [input() for _ in range(8)]
count = 0
for cols in permutations(range(8)):
    if any(board[r][c] == "*" for r, c in enumerate(cols)):
        continue
    if len({r - c for r, c in enumerate(cols)}) == 8 and len({r + c for r, c in enumerate(cols)}) == 8:
        count += 1
print(count)
