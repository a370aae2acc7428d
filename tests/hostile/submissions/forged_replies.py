# Writes its own reply frames while loading, for the tests named in FORGED: fields of any type and size,
# encoded by hand (json.dumps writes NaN), as a harness rewritten at load time can.
import __main__
import json
import os
import time

P = 2**61 - 1  # every multiple of it is a Python int whose hash is 0
FORGED = {
    "slow()": {"cpu": float("nan"), "result": json.dumps({"value": 1})},
    "huge_status()": {"status": 2**40, "cpu": 2**40, "stdout_size": -1},
    "deep()": {"result": '{"value": ' + "[" * 700 + "]" * 700 + "}"},
    "colliding()": {"result": json.dumps({"value": [P * i for i in range(1, 75_001)]})},
    "colliding_set()": {"result": '{"value": {"$s": [%s]}}' % ",".join(str(P * i) for i in range(1, 75_001))},
    "flood()": {"stdout": "x" * 5_000_000, "stdout_size": 0, "stderr": "e" * 5_000_000},
    "long_error()": {"result": json.dumps({"error_type": "E" * 1_000_000, "message": "m" * 1_000_000,
                                            "traceback": "t\n" * 1_000_000})},
    "wrong_types()": {"status": "0", "stdout": ["a"], "stdout_size": 1.5, "stderr": None,
                      "result": json.dumps({"value": 2, "exit_code": 2**200})},
    "square(2680)": {"result": json.dumps({"error_type": "Leak2680", "builtin": True, "message": "2680"})},
}
real_receive, real_send, real_prepare = __main__.receive, __main__.send, __main__.prepare_test_child
current = {"call": ""}


def receive():
    request = real_receive()
    current["call"] = request.get("call") or ""
    return request


def prepare(request, files):
    if current["call"] == "slow()":
        request = dict(request, cpu=100.0)  # no CPU timer: the forged reply is to hide its time
    real_prepare(request, files)


def send(message):
    forged = FORGED.get(current["call"])
    if "seq" not in message or forged is None:
        return real_send(message)
    data = json.dumps({**message, **forged}).encode()
    os.write(4, len(data).to_bytes(4, "big") + data)


__main__.receive, __main__.send, __main__.prepare_test_child = receive, send, prepare


def slow():
    stop = time.process_time() + 3.0  # 12x the 0.25 s limit
    while time.process_time() < stop:
        pass
    return 1


def huge_status():
    return 0


deep = colliding = colliding_set = flood = long_error = wrong_types = huge_status


def square(n):
    return n * n
