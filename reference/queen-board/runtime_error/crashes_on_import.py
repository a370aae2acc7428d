"""A table of directions built with a tuple added to a list: TypeError while the module loads, before
any test can build a board."""

DIRECTIONS = [(0, 1), (1, 0)] + (1, 1)


class Board:
    def __init__(self, n):
        self.n = n
