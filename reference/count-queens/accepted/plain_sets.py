"""Row by row, with a set per kind of line a queen covers."""


def count_queens(n):
    taken_cols = set()
    taken_downs = set()  # row - col is the same along a diagonal going down to the right
    taken_ups = set()  # row + col is the same along a diagonal going down to the left

    def fill(row):
        if row == n:
            return 1
        ways = 0
        for col in range(n):
            if col in taken_cols or row - col in taken_downs or row + col in taken_ups:
                continue
            taken_cols.add(col)
            taken_downs.add(row - col)
            taken_ups.add(row + col)
            ways += fill(row + 1)
            taken_cols.remove(col)
            taken_downs.remove(row - col)
            taken_ups.remove(row + col)
        return ways

    return fill(0)
