"""Read the 8 rows, then place one queen per row on free squares, with three sets."""
import sys

SIZE = 8


def main():
    board = [line.strip() for line in sys.stdin.read().split("\n") if line.strip()][:SIZE]
    cols, downs, ups = set(), set(), set()

    def place(row):
        if row == SIZE:
            return 1
        ways = 0
        for col in range(SIZE):
            if board[row][col] == "*":
                continue
            if col in cols or row - col in downs or row + col in ups:
                continue
            cols.add(col)
            downs.add(row - col)
            ups.add(row + col)
            ways += place(row + 1)
            cols.remove(col)
            downs.remove(row - col)
            ups.remove(row + col)
        return ways

    print(place(0))


main()
