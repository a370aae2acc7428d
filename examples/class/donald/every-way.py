n = int(input())
taken_col = [0] * n
taken_sum = [0] * (2 * n)
taken_diff = [0] * (2 * n)
picks = []
out = []


def put(r):
    if r == n:
        out.append(" ".join(str(p + 1) for p in picks))
        return
    for c in range(n):
        if taken_col[c] or taken_sum[r + c] or taken_diff[r - c + n]:
            continue
        taken_col[c] = taken_sum[r + c] = taken_diff[r - c + n] = 1
        picks.append(c)
        put(r + 1)
        picks.pop()
        taken_col[c] = taken_sum[r + c] = taken_diff[r - c + n] = 0


put(0)
print("\n".join(out) if out else "none")
