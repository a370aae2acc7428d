"""Bitmasks: bit c of each mask stands for column c of the current row."""


def count_queens(n):
    full = (1 << n) - 1

    def fill(cols, left, right):
        if cols == full:
            return 1
        ways = 0
        free = full & ~(cols | left | right)
        while free:
            bit = free & -free
            free -= bit
            ways += fill(cols | bit, ((left | bit) << 1) & full, (right | bit) >> 1)
        return ways

    return fill(0, 0, 0)
