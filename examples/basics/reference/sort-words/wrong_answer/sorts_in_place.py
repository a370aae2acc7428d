"""Sorts the list given and returns it: right order, but the caller's list is changed."""


def sort_words(words):
    words.sort(key=lambda word: (word.lower(), word))
    return words
