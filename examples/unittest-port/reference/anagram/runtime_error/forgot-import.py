def find_anagrams(word, candidates):
    # Counter is imported by the tests, not here: the submission must import what it uses
    return [c for c in candidates if c.lower() != word.lower() and Counter(c.lower()) == Counter(word.lower())]
