"""casefold() instead of lower(): ß becomes ss."""


def sort_words(words):
    return sorted(words, key=lambda word: (word.casefold(), word))
