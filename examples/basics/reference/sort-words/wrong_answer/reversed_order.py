"""reverse=True by mistake."""


def sort_words(words):
    return sorted(words, key=lambda word: (word.lower(), word), reverse=True)
