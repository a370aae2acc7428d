def square(number):
    if number < 1 or number > 64:
        raise ValueError("square must be between 1 and 64")
    return float(2 ** (number - 1))  # == the int: every power of two up to 2**63 is exact in a float


def total():
    return sum(2 ** n for n in range(64))
