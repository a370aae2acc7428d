class Solution:
    def totalNQueens(self, n: int) -> int:
        taken_col = [0] * n
        taken_sum = [0] * (2 * n)
        taken_diff = [0] * (2 * n)

        def put(r):
            if r == n:
                return 1
            ways = 0
            for c in range(n):
                if taken_col[c] or taken_sum[r + c] or taken_diff[r - c + n]:
                    continue
                taken_col[c] = taken_sum[r + c] = taken_diff[r - c + n] = 1
                ways += put(r + 1)
                taken_col[c] = taken_sum[r + c] = taken_diff[r - c + n] = 0
            return ways

        return put(0)
