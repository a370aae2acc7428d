"""Bitmasks, highest free column first (so the raw order is reversed), then sorted."""


def solve(n):
    full = (1 << n) - 1
    rows = {1 << c: "." * c + "#" + "." * (n - 1 - c) for c in range(n)}
    layouts = []

    def light(cols, left, right, drawn):
        if cols == full:
            layouts.append("/".join(drawn))
            return
        free = full & ~(cols | left | right)
        while free:
            bit = 1 << (free.bit_length() - 1)
            free ^= bit
            light(cols | bit, ((left | bit) << 1) & full, (right | bit) >> 1, drawn + (rows[bit],))

    light(0, 0, 0, ())
    layouts.sort()
    return layouts
