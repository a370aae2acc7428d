from itertools import product


def count_queens(n):
    total = 0
    for cols in product(range(n), repeat=n):
        ok = True
        for i in range(n):
            for j in range(i + 1, n):
                if cols[i] == cols[j] or abs(cols[i] - cols[j]) == j - i:
                    ok = False
        if ok:
            total += 1
    return total
