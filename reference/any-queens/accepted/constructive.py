"""The explicit placement: even columns, then odd ones, with two repairs for n % 6 in (2, 3). O(n)."""


def any_queens(n):
    if n in (2, 3):
        return None
    evens = list(range(2, n + 1, 2))  # 1-based columns, as the rule is usually stated
    odds = list(range(1, n + 1, 2))
    if n % 6 == 2:  # 3, 1, 7, 9, ..., 5: swap 1 and 3, move 5 to the end
        odds = [3, 1] + odds[3:] + [5]
    elif n % 6 == 3:  # 4, 6, ..., 2 and 5, 7, ..., 1, 3
        evens = evens[1:] + [2]
        odds = odds[2:] + [1, 3]
    return [col - 1 for col in evens + odds]
