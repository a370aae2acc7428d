def first_solution(n):
    if n == 1
        return [0]
    return None
