"""How values cross the sandbox's pipes, the grader's side: a request goes out whole in one call (its raw
attachments after it, in order, however full the pipe is), and a raw list of numbers comes back straight
from the reply's buffer, known flat, so that its million items are not walked again to bound its depth."""

from __future__ import annotations

import json
import os
import struct
import threading

from grader import replies
from grader.sandbox import wire


def _read_all(fd: int, into: bytearray) -> None:
    while chunk := os.read(fd, 1 << 16):
        into += chunk


def test_a_request_and_its_attachments_arrive_whole_and_in_order_past_the_pipes_capacity() -> None:
    parts = wire.framed({"seq": 1, "attachments": [bytes(range(256)) * 12_000, b"", b"tail" * 1000]})
    read, write = os.pipe()
    got = bytearray()
    reader = threading.Thread(target=_read_all, args=(read, got))
    reader.start()
    try:
        wire.send(write, parts)  # 3 MB: many times the pipe's buffer, so the writes end part-way
    finally:
        os.close(write)
        reader.join()
        os.close(read)
    assert got == b"".join(parts)


def test_a_request_to_a_sandbox_that_died_is_dropped_quietly() -> None:
    read, write = os.pipe()
    os.close(read)
    wire.send(write, [b"\0\0\0\1x", b"raw"])  # no reader: the reply's read reports the death, not this
    os.close(write)


def test_a_raw_list_reads_back_exactly_wherever_its_bytes_start() -> None:
    """The harness aligns the raw part; a forged reply need not. Unaligned numbers still read back exactly."""
    numbers = [1.5, -0.0, float("inf"), 2.0**-1074]
    for pad in range(8):
        text = json.dumps({"value": {"$lf": [pad, len(numbers)]}}).encode()
        data = bytearray(text + b"\0" + bytes(pad) + struct.pack("<4d", *numbers))
        decoded = wire.decode(data)
        assert isinstance(decoded, dict) and decoded["value"] == numbers, pad
        assert all(type(x) is float for x in decoded["value"])


def test_lists_built_from_raw_numbers_are_named_flat_and_no_other() -> None:
    text = json.dumps({"value": [{"$li": [0, 2]}, [1, 2], {"$lf": [16, 1]}]}).encode()
    flat: set[int] = set()
    decoded = wire.decode(bytearray(text + b"\0" + struct.pack("<qqd", 7, -7, 0.5)), flat=flat)
    assert isinstance(decoded, dict)
    raw_ints, plain, raw_floats = decoded["value"]
    assert raw_ints == [7, -7] and raw_floats == [0.5] and plain == [1, 2]
    assert flat == {id(raw_ints), id(raw_floats)}


def test_a_flat_list_counts_as_one_level_and_nesting_beside_it_is_still_bounded() -> None:
    numbers = [0.5] * 1000
    assert replies._depth(numbers, {id(numbers)}) == 1
    assert replies._depth([numbers, [[1]]], {id(numbers)}) == 3
    deep: list[object] = []
    for _ in range(replies.VALUE_DEPTH + 5):
        deep = [deep]
    assert replies._depth([numbers, deep], {id(numbers)}) > replies.VALUE_DEPTH


def test_a_million_floats_answer_is_read_without_the_depth_walk_refusing_it() -> None:
    count = 1_000_000
    text = json.dumps({"value": {"$lf": [0, count]}}).encode()
    text += b" " * (-(len(text) + 1) % 8)
    buffer = bytearray(text + b"\0" + struct.pack(f"<{count}d", *range(count)))
    decoded = replies._decode_result(wire.Attached(buffer, 0))
    assert not decoded.get("unreadable") and len(decoded["value"]) == count and decoded["value"][-1] == count - 1


def test_tests_given_inputs_of_one_size_each_see_their_own_and_nothing_of_the_last() -> None:
    """The harness fills the last request's buffer again for an input of exactly its size: each test sees
    its own numbers, one that changed its input in place changes nothing the next one sees, and an input
    of another size gets a buffer of its own."""
    from grader.model import Limits
    from grader.sandbox import ProcessBackend
    from grader.sandbox.isolation import detect

    source = ("def f(xs):\n    first = xs[0]\n    xs[0] = -1.0\n    return [first, len(xs), sum(xs[1:])]\n")
    setup = {"mode": "module", "source": source, "prelude": "", "test_setup": "", "entry": "f", "forbid": [],
             "modules": [], "name": "", "load_cpu": 2.0, "margin": 1.2}
    session = ProcessBackend(detect()).start(Limits())
    try:
        assert session.load(setup, 30).data == {"loaded": True}
        for seq, (start, count) in enumerate([(1, 5000), (2, 5000), (3, 3000), (4, 5000)], 1):
            numbers = [float(start + i) for i in range(count)]
            request = {"seq": seq, "call": "f(xs)", "stdin": "", "compare": "value", "cpu": 2.0, "margin": 1.2,
                       "memory": 256 << 20, "output": 64 << 10, "given": {"xs": None},
                       "given_raw": [("xs", "list", "d", (count,), 0)],
                       "attachments": [struct.pack(f"<{count}d", *numbers)]}
            reply = session.run(request, 30)
            assert reply.failure == "" and reply.data is not None, reply
            assert json.loads(reply.data["result"])["value"] == [numbers[0], count, sum(numbers[1:])], seq
    finally:
        session.close()
