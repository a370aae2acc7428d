def count_queens(n):
    answer = 0
    taken_col = [0] * n
    taken_sum = [0] * (2 * n)
    taken_diff = [0] * (2 * n)

    def put(r):
        nonlocal answer
        if r == n:
            answer += 1
            return
        for c in range(n):
            if taken_col[c] or taken_sum[r + c] or taken_diff[r - c + n]:
                continue
            taken_col[c] = taken_sum[r + c] = taken_diff[r - c + n] = 1
            put(r + 1)
            taken_col[c] = taken_sum[r + c] = taken_diff[r - c + n] = 0

    put(0)
    return answer
