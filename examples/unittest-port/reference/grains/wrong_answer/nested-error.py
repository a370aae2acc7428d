def square(number):
    if not 1 <= number <= 64:
        # str() reads the same, but args[0] is an exception, not the message: unittest fails it
        raise ValueError(ValueError("square must be between 1 and 64"))
    return 1 << (number - 1)


def total():
    return (1 << 64) - 1
