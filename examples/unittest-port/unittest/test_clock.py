import unittest

from clock import Clock


class ClockTest(unittest.TestCase):
    def test_on_the_hour(self):
        self.assertEqual(str(Clock(8, 0)), "08:00")

    def test_repr(self):
        self.assertEqual(repr(Clock(8, 0)), "Clock(8, 0)")

    def test_past_midnight_rolls_over(self):
        self.assertEqual(str(Clock(25, 160)), "03:40")

    def test_add_minutes(self):
        self.assertEqual(Clock(10, 0) + 3, Clock(10, 3))
        self.assertEqual(str(Clock(10, 0) + 3), "10:03")  # pinned: == alone trusts the class's own __eq__

    def test_add_across_midnight(self):
        self.assertEqual(Clock(23, 59) + 2, Clock(0, 1))
        self.assertEqual(str(Clock(23, 59) + 2), "00:01")

    def test_clocks_with_the_same_time_are_equal(self):
        self.assertEqual(Clock(15, 37), Clock(15, 37))
        self.assertEqual(Clock(7, 32), Clock(-12, -268))
        self.assertFalse(Clock(15, 37) == Clock(15, 38))

    def test_clocks_a_minute_apart_are_not_equal(self):
        self.assertNotEqual(Clock(15, 37), Clock(15, 36))
