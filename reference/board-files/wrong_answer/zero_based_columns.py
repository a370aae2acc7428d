"""Columns counted from 0 in OUT."""

import sys


def placements(board):
    found, queens = [], []
    cols, downs, ups = set(), set(), set()

    def extend(row):
        if row == 8:
            found.append(" ".join(str(col) for col in queens))
            return
        for col in range(8):
            if board[row][col] != "." or col in cols or row - col in downs or row + col in ups:
                continue
            queens.append(col)
            cols.add(col)
            downs.add(row - col)
            ups.add(row + col)
            extend(row + 1)
            queens.pop()
            cols.remove(col)
            downs.remove(row - col)
            ups.remove(row + col)

    extend(0)
    return found


def main():
    board_name, out_name = sys.argv[1], sys.argv[2]
    try:
        with open(board_name, encoding="utf-8") as board_file:
            board = board_file.read().split()
    except OSError as error:
        print(f"cannot read the board {board_name}: {error.strerror}", file=sys.stderr)
        sys.exit(1)
    found = placements(board)
    with open(out_name, "w", encoding="utf-8") as out:
        out.writelines(line + "\n" for line in found)
    print(len(found))


main()
