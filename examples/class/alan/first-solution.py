def safe(queens, col):
    row = len(queens)
    return all(c != col and abs(c - col) != row - r for r, c in enumerate(queens))


def first_solution(n, queens=None):
    if queens is None:
        queens = []
    if len(queens) == n:
        return list(queens)
    for col in range(n):
        if safe(queens, col):
            queens.append(col)
            answer = first_solution(n, queens)
            if answer is not None:
                return answer
            queens.pop()
    return None
