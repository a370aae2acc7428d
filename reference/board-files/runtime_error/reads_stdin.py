"""Reads the board from standard input, as the chessboard-queens program did: there is none, so input()
raises EOFError."""

import sys

board = [input() for _ in range(8)]
print(len(board), sys.argv)
