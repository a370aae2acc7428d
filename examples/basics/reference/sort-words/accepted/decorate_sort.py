"""Decorate, sort, undecorate, as before sort() had a key."""


def sort_words(words):
    decorated = [(word.lower(), word) for word in words]
    decorated.sort()
    return [word for _, word in decorated]
