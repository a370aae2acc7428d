def square(number):
    if not 1 <= number <= 64:
        # args[0] is the message: unittest reads args[0], so a second argument changes nothing
        raise ValueError("square must be between 1 and 64", number)
    return 1 << (number - 1)


def total():
    return (1 << 64) - 1
