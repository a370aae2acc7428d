"""key=str.lower alone: words equal ignoring case keep the order they came in."""


def sort_words(words):
    return sorted(words, key=str.lower)
