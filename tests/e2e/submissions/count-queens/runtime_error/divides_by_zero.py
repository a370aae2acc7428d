def count_queens(n):
    average = n / 0
    return int(average)
