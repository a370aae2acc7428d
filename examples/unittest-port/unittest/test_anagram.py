import unittest
from collections import Counter

from anagram import find_anagrams


def words(text):
    return text.split()


class AnagramTest(unittest.TestCase):
    def test_no_matches(self):
        self.assertCountEqual(find_anagrams("diaper", words("hello world zombies pants")), [])

    def test_detects_two_anagrams(self):
        self.assertCountEqual(find_anagrams("solemn", words("lemons cherry melons")), ["lemons", "melons"])

    def test_anagrams_are_case_insensitive(self):
        self.assertCountEqual(find_anagrams("Orchestra", words("cashregister Carthorse radishes")), ["Carthorse"])

    def test_words_are_not_anagrams_of_themselves(self):
        self.assertCountEqual(find_anagrams("BANANA", words("BANANA")), [])

    def test_each_candidate_once(self):
        self.assertEqual(max(Counter(find_anagrams("go", words("og Og"))).values()), 1)
