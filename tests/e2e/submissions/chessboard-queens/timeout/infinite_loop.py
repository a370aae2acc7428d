def count(board):
    while True:
        pass


board = [input() for _ in range(8)]
print(count(board))
