"""Right columns, wrong type: a tuple where a list is asked for."""


def first_solution(n):
    def extend(row, placed):
        if row == n:
            return placed
        for col in range(n):
            if all(c != col and abs(c - col) != row - r for r, c in enumerate(placed)):
                found = extend(row + 1, placed + (col,))
                if found is not None:
                    return found
        return None

    return extend(0, ())
