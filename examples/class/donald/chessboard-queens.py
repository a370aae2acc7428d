grid = [input() for _ in range(8)]
taken_col = [0] * 8
taken_sum = [0] * 16
taken_diff = [0] * 16


def put(r):
    if r == 8:
        return 1
    ways = 0
    for c in range(8):
        if grid[r][c] == "*" or taken_col[c] or taken_sum[r + c] or taken_diff[r - c + 8]:
            continue
        taken_col[c] = taken_sum[r + c] = taken_diff[r - c + 8] = 1
        ways += put(r + 1)
        taken_col[c] = taken_sum[r + c] = taken_diff[r - c + 8] = 0
    return ways


print(put(0))
