def solve(n):
    full = (1 << n) - 1
    layouts = []

    def go(cols, left, right, rows):
        if cols == full:
            layouts.append("/".join(rows))
            return
        free = ~(cols | left | right) & full
        while free:
            bit = free & -free
            free -= bit
            c = bit.bit_length() - 1
            go(cols | bit, ((left | bit) << 1) & full, (right | bit) >> 1,
               rows + ["." * c + "#" + "." * (n - c - 1)])

    go(0, 0, 0, [])
    return sorted(layouts)
