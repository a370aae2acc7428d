"""Sorts by a key that is a word for some words and a number for others: TypeError."""


def sort_words(words):
    return sorted(words, key=lambda word: word.lower() if len(word) > 1 else len(word))
