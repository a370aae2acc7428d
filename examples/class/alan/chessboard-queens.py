import sys

board = sys.stdin.read().split()


def go(queens):
    row = len(queens)
    if row == 8:
        return 1
    total = 0
    for col in range(8):
        if board[row][col] == "*":
            continue
        if all(c != col and abs(c - col) != row - r for r, c in enumerate(queens)):
            total += go(queens + [col])
    return total


print(go([]))
