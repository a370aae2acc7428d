def first_solution(n):
    full = (1 << n) - 1
    queens = []

    def go(cols, left, right):
        if cols == full:
            return True
        free = ~(cols | left | right) & full
        while free:
            bit = free & -free
            free -= bit
            queens.append(bit.bit_length() - 1)
            if go(cols | bit, ((left | bit) << 1) & full, (right | bit) >> 1):
                return True
            queens.pop()
        return False

    return queens if go(0, 0, 0) else None
