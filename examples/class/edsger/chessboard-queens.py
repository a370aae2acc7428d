n = int(input())
board = [input() for _ in range(n)]
full = (1 << n) - 1


def go(row, cols, left, right):
    if row == n:
        return 1
    blocked = sum(1 << c for c in range(n) if board[row][c] == "*")
    free = ~(cols | left | right | blocked) & full
    total = 0
    while free:
        bit = free & -free
        free -= bit
        total += go(row + 1, cols | bit, ((left | bit) << 1) & full, (right | bit) >> 1)
    return total


print(go(0, 0, 0, 0))
