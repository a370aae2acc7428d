"""The fastest plain search, with bitmasks, is still exponential: n = 200 does not finish."""


def any_queens(n):
    full = (1 << n) - 1
    queens = []

    def extend(cols, downs, ups):
        if cols == full:
            return True
        free = full & ~(cols | downs | ups)
        while free:
            bit = free & -free
            free ^= bit
            queens.append(bit.bit_length() - 1)
            if extend(cols | bit, ((downs | bit) << 1) & full, (ups | bit) >> 1):
                return True
            queens.pop()
        return False

    return queens if extend(0, 0, 0) else None
