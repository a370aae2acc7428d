def solve(n):
    per_row = n // (n - n)
    return [] * per_row
