"""Compares upper-case forms: '_' and the other signs between Z and a change sides."""


def sort_words(words):
    return sorted(words, key=lambda word: (word.upper(), word))
