"""A generator over bitmasks, lowest bit (leftmost column) first; prints while it searches."""
import sys


def arrangements(n, cols=0, left=0, right=0, placed=()):
    full = (1 << n) - 1
    if cols == full:
        yield placed
        return
    free = full & ~(cols | left | right)
    while free:
        bit = free & -free
        free ^= bit
        yield from arrangements(n, cols | bit, ((left | bit) << 1) & full, (right | bit) >> 1,
                                placed + (bit.bit_length(),))


n = int(sys.stdin.readline())
lines = [" ".join(map(str, a)) for a in arrangements(n)]
sys.stdout.write("\n".join(lines) + "\n" if lines else "none\n")
