class Solution:
    def totalNQueens(self, n: int) -> int:
        full = (1 << n) - 1

        def count(cols: int, left: int, right: int) -> int:
            if cols == full:
                return 1
            total = 0
            free = full & ~(cols | left | right)
            while free:
                bit = free & -free
                free ^= bit
                total += count(cols | bit, ((left | bit) << 1) & full, (right | bit) >> 1)
            return total

        return count(0, 0, 0)
