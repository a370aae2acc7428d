# Prints the invisible format characters that reorder or hide text on a terminal.
def shout():
    print("a\u061cb\u2067c\u2069d\u00ade\U000e0041f\u2028g\u180eh")


def square(n):
    return n * n
