def first_solution(n):
    taken_col = [0] * n
    taken_sum = [0] * (2 * n)
    taken_diff = [0] * (2 * n)
    answer = []

    def put(r):
        if r == n:
            return True
        for c in range(n):
            if taken_col[c] or taken_sum[r + c] or taken_diff[r - c + n]:
                continue
            taken_col[c] = taken_sum[r + c] = taken_diff[r - c + n] = 1
            answer.append(c)
            if put(r + 1):
                return True
            answer.pop()
            taken_col[c] = taken_sum[r + c] = taken_diff[r - c + n] = 0
        return False

    if not put(0):
        return None
    return answer
