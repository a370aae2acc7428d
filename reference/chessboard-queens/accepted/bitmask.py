"""Bitmasks: each row's reserved squares become a mask that is removed from the free columns."""

rows = [input().strip() for _ in range(8)]
blocked = [sum(1 << c for c, ch in enumerate(line) if ch == "*") for line in rows]
FULL = (1 << 8) - 1


def count(row, cols, left, right):
    if row == 8:
        return 1
    free = FULL & ~(cols | left | right | blocked[row])
    total = 0
    while free:
        bit = free & -free
        free ^= bit
        total += count(row + 1, cols | bit, ((left | bit) << 1) & FULL, (right | bit) >> 1)
    return total


print(count(0, 0, 0, 0))
