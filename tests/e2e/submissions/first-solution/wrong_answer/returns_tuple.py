def first_solution(n):
    def go(row, placed):
        if row == n:
            return placed
        for col in range(n):
            if all(c != col and abs(c - col) != row - r for r, c in enumerate(placed)):
                result = go(row + 1, placed + (col,))
                if result is not None:
                    return result
        return None

    return go(0, ())
