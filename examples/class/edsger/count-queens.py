def count_queens(n):
    full = (1 << n) - 1

    def go(cols, left, right):
        if cols == full:
            return 1
        total = 0
        free = ~(cols | left | right) & full
        while free:
            bit = free & -free
            free -= bit
            total += go(cols | bit, ((left | bit) << 1) & full, (right | bit) >> 1)
        return total

    return go(0, 0, 0)
