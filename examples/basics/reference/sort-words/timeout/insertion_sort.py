"""A correct insertion sort: O(n²) comparisons, about 10^10 for 200,000 words."""


def sort_words(words):
    result = []
    for word in words:
        key = (word.lower(), word)
        i = len(result)
        result.append(word)
        while i > 0 and (result[i - 1].lower(), result[i - 1]) > key:
            result[i] = result[i - 1]
            i -= 1
        result[i] = word
    return result
