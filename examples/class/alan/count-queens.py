def count_queens(n, row=0, cols=frozenset(), downs=frozenset(), ups=frozenset()):
    if row == n:
        return 1
    return sum(
        count_queens(n, row + 1, cols | {c}, downs | {row - c}, ups | {row + c})
        for c in range(n)
        if c not in cols and row - c not in downs and row + c not in ups
    )
