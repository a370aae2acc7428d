import unittest

from circular_buffer import BufferEmptyException, BufferFullException, CircularBuffer


class CircularBufferTest(unittest.TestCase):
    def test_reading_empty_buffer_should_fail(self):
        buf = CircularBuffer(1)
        with self.assertRaises(BufferError) as err:
            buf.read()
        self.assertEqual(type(err.exception), BufferEmptyException)
        self.assertEqual(err.exception.args[0], "Circular buffer is empty")

    def test_can_read_an_item_just_written(self):
        buf = CircularBuffer(1)
        buf.write("1")
        self.assertEqual(buf.read(), "1")

    def test_each_item_may_only_be_read_once(self):
        buf = CircularBuffer(1)
        buf.write("1")
        self.assertEqual(buf.read(), "1")
        with self.assertRaises(BufferError) as err:
            buf.read()
        self.assertEqual(type(err.exception), BufferEmptyException)
        self.assertEqual(err.exception.args[0], "Circular buffer is empty")

    def test_full_buffer_can_t_be_written_to(self):
        buf = CircularBuffer(1)
        buf.write("1")
        with self.assertRaises(BufferError) as err:
            buf.write("2")
        self.assertEqual(type(err.exception), BufferFullException)
        self.assertEqual(err.exception.args[0], "Circular buffer is full")

    def test_overwrite_replaces_the_oldest_item(self):
        buf = CircularBuffer(2)
        buf.write("1")
        buf.write("2")
        buf.overwrite("3")
        self.assertEqual(buf.read(), "2")
        self.assertEqual(buf.read(), "3")

    def test_the_exceptions_are_buffer_errors(self):
        self.assertTrue(issubclass(BufferFullException, BufferError))
        self.assertTrue(issubclass(BufferEmptyException, BufferError))
