"""Forgets to sort: the bitmask search takes the rightmost free column first, so the layouts come out reversed."""


def solve(n):
    full = (1 << n) - 1
    layouts = []

    def light(cols, left, right, placed):
        if cols == full:
            layouts.append("/".join("." * c + "#" + "." * (n - 1 - c) for c in placed))
            return
        free = full & ~(cols | left | right)
        while free:
            col = free.bit_length() - 1
            bit = 1 << col
            free ^= bit
            light(cols | bit, ((left | bit) << 1) & full, (right | bit) >> 1, placed + [col])

    light(0, 0, 0, [])
    return layouts
