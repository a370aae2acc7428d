"""Bitmasks; the lowest free bit is the leftmost free column, so the order is the same."""


def first_solution(n):
    full = (1 << n) - 1

    def extend(cols, left, right):
        if cols == full:
            return []
        free = full & ~(cols | left | right)
        while free:
            bit = free & -free
            free -= bit
            rest = extend(cols | bit, ((left | bit) << 1) & full, (right | bit) >> 1)
            if rest is not None:
                return [bit.bit_length() - 1] + rest
        return None

    return extend(0, 0, 0)
