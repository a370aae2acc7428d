def count_queens(n)
    return 0
