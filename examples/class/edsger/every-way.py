n = int(input())
full = (1 << n) - 1
lines = []


def go(cols, left, right, placed):
    if cols == full:
        lines.append(" ".join(str(c + 1) for c in placed))
        return
    free = ~(cols | left | right) & full
    while free:
        bit = free & -free
        free -= bit
        go(cols | bit, ((left | bit) << 1) & full, (right | bit) >> 1, placed + [bit.bit_length() - 1])


go(0, 0, 0, [])
print("\n".join(lines) if lines else "none")
