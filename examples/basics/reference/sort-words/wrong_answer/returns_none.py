"""Returns what list.sort() returns: None."""


def sort_words(words):
    return words.sort(key=lambda word: (word.lower(), word))
