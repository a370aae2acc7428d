# Bitmasks, rightmost free column first: the same boards in a different order,
# which the unordered checker must accept.
class Solution:
    def solveNQueens(self, n: int) -> List[List[str]]:
        full = (1 << n) - 1
        line = {1 << c: "." * c + "Q" + "." * (n - 1 - c) for c in range(n)}
        boards = []

        def place(cols: int, left: int, right: int, rows: List[str]) -> None:
            if cols == full:
                boards.append(list(rows))
                return
            free = full & ~(cols | left | right)
            while free:
                bit = 1 << (free.bit_length() - 1)
                free ^= bit
                rows.append(line[bit])
                place(cols | bit, ((left | bit) << 1) & full, (right | bit) >> 1, rows)
                rows.pop()

        place(0, 0, 0, [])
        return boards
