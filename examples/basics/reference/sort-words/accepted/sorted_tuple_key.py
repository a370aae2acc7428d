"""The key of the statement."""


def sort_words(words):
    return sorted(words, key=lambda word: (word.lower(), word))
