"""Plain sorted(): every capital before every small letter."""


def sort_words(words):
    return sorted(words)
