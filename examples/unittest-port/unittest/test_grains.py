import unittest

from grains import square, total


class GrainsTest(unittest.TestCase):
    def test_square_1(self):
        self.assertEqual(square(1), 1)

    def test_square_32(self):
        self.assertEqual(square(32), 2147483648)

    def test_square_64(self):
        self.assertEqual(square(64), 9223372036854775808)

    def test_total(self):
        self.assertEqual(total(), 18446744073709551615)

    def test_square_0_raises(self):
        with self.assertRaises(ValueError) as err:
            square(0)
        self.assertEqual(type(err.exception), ValueError)
        self.assertEqual(err.exception.args[0], "square must be between 1 and 64")

    def test_square_65_raises(self):
        with self.assertRaises(ValueError) as err:
            square(65)
        self.assertEqual(type(err.exception), ValueError)
        self.assertEqual(err.exception.args[0], "square must be between 1 and 64")
