def first_solution(n):
    return search(0, n, [])
