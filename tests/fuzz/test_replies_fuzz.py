"""The reply parser against random and adversarial frames, as a harness rewritten at load time could send
them: huge and non-finite numbers, deep nesting, colliding hashes, wrong types, invalid UTF-8, truncated
frames and wrong sequence numbers. Every case ends in a verdict and a bounded strict-JSON and terminal
report, in grader CPU time linear in the frame's size."""

from __future__ import annotations

import io
import json
import os
import threading
import time

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from grader.kinds import kind_of
from grader.model import CheckerSpec, Limits, Report, Verdict
from grader.model import Test as SpecTest
from grader.outputs.json_report import JsonReport
from grader.outputs.terminal import TerminalReport
from grader.replies import result_from
from grader.sandbox.process import ProcessSession
from grader.verdicts import judge

SEQ = 12345
P = 2**61 - 1  # every multiple is an int whose hash is 0
OUTPUT_KIB = 4
MARGIN = 8 << 10  # bytes per test beyond the texts the output limit bounds
CPU_PER_BYTE = 5e-6  # 5 s per MB of frame: generous on a slow machine, far below a quadratic cost
CPU_FLOOR = 2.0

HOSTILE_NUMBERS = [float("nan"), float("inf"), -float("inf"), -1, 2**40, 2**63, 2**31, -2**31, 1e308, 2**4000]
numbers = st.one_of(st.sampled_from(HOSTILE_NUMBERS), st.integers(), st.floats(),
                    st.integers(min_value=2**40, max_value=2**4000))
scalars = st.one_of(st.none(), st.booleans(), numbers, st.text(max_size=50))
tagged = st.recursive(
    scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=6), st.dictionaries(st.text(max_size=5), inner, max_size=4),
                            st.builds(lambda items: {"$t": items}, st.lists(inner, max_size=4)),
                            st.builds(lambda items: {"$s": items}, st.lists(inner, max_size=4)),
                            st.builds(lambda pairs: {"$d": pairs}, st.lists(st.lists(inner, max_size=3), max_size=3)),
                            st.builds(lambda text: {"$b": text}, inner),
                            st.builds(lambda name: {"$o": name}, inner)),
    max_leaves=30)


def deep(depth: int, tag: str) -> str:
    opener, closer = {"list": ("[", "]"), "tuple": ('{"$t": [', "]}"), "dict": ('{"a": ', "}")}[tag]
    return '{"value": ' + opener * depth + closer * depth + "}"


def colliding(count: int, as_set: bool) -> str:
    items = ",".join(str(P * i) for i in range(1, count + 1))
    return '{"value": {"$s": [%s]}}' % items if as_set else '{"value": [%s]}' % items


results = st.one_of(
    st.builds(lambda value: json.dumps({"value": value}), tagged),
    st.builds(lambda fields: json.dumps(fields), st.dictionaries(
        st.sampled_from(["value", "error_type", "builtin", "message", "traceback", "exit_code", "done",
                         "unreadable", "sandbox_error"]), tagged, max_size=5)),
    st.builds(deep, st.sampled_from([300, 700, 990, 5000]) | st.integers(1, 5000), st.sampled_from(["list", "tuple", "dict"])),
    st.builds(colliding, st.sampled_from([20_000, 40_000]), st.booleans()),
    st.text(max_size=200),
    st.just('{"value": ' + "1," * 100_000 + "1}"),
)
replies = st.fixed_dictionaries(
    {"seq": st.one_of(st.just(SEQ), tagged)},
    optional={"status": numbers | tagged, "cpu": numbers, "maxrss_kb": tagged, "stdout": st.one_of(tagged, st.text()),
              "stdout_size": numbers, "stderr": tagged, "result": results, "loaded": tagged},
)
# A frame as bytes: well formed, or damaged (cut short, invalid UTF-8, random bytes), with its length prefix.
damage = st.sampled_from(["none"] * 5 + ["truncate", "bad_utf8", "random", "big_stdout", "wrong_length"])


def framed(reply: dict, how: str, cut: float, noise: bytes) -> bytes:
    data = json.dumps(reply).encode()  # NaN and Infinity written as a forger's json.dumps writes them
    if how == "truncate":
        data = data[: int(len(data) * cut)]
    elif how == "bad_utf8":
        at = int(len(data) * cut)
        data = data[:at] + b"\xff\xfe\xc3" + noise + data[at:]
    elif how == "random":
        data = noise
    elif how == "big_stdout":
        data = json.dumps({**reply, "stdout": "\x1b[2J\u202e\n" * 200_000, "stdout_size": 0}).encode()
    prefix = len(data) + (7 if how == "wrong_length" else 0)
    return prefix.to_bytes(4, "big") + data


def received(frames: list[bytes]) -> object:
    """The frames through the grader's real reading loop (length prefix, seq check, death by EOF)."""
    session = ProcessSession({}, Limits(), None, (), 1.0)  # type: ignore[arg-type]  # only its reading is used
    session.replies_r, writer = os.pipe()
    session.pidfd = os.pidfd_open(os.getpid())  # alive: the reader waits for frames or their EOF

    def write() -> None:
        try:
            with os.fdopen(writer, "wb") as out:
                for frame in frames:
                    out.write(frame)
        except BrokenPipeError:
            pass  # the reader stopped at the frame it wanted, or at a bad one

    thread = threading.Thread(target=write)
    thread.start()
    try:
        return session._receive(30.0, SEQ)
    finally:
        os.close(session.replies_r)
        os.close(session.pidfd)
        thread.join()


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(st.tuples(replies, damage, st.floats(0, 1), st.binary(max_size=40)), min_size=1, max_size=3),
       st.booleans(), st.sampled_from(["value", "unordered", "output"]))
def test_any_reply_ends_in_a_verdict_and_a_bounded_report(cases: list, hidden: bool, checker: str) -> None:
    frames = [framed(*case) for case in cases]
    compare = "output" if checker == "output" else "value"
    test = SpecTest(name="t", call="f()", stdin=None, compare=compare, expect=None, hidden=hidden, big=False,
                points=1.0, checker=CheckerSpec(checker), limits=Limits(cpu=1.0, output=OUTPUT_KIB))
    expected = "hello" if compare == "output" else [1, 2, 3]
    started = time.process_time()
    frame = received(frames)
    result = result_from(frame, test.limits, kind_of("function"))  # type: ignore[arg-type]
    outcome = judge(test, result, expected)
    report = Report("fuzz", "submission.py", (outcome,), "isolation: fuzz")
    as_json, as_text = io.StringIO(), io.StringIO()
    JsonReport().render(report, as_json)
    TerminalReport(width=100, color=False).render(report, as_text)
    used = time.process_time() - started

    assert isinstance(outcome.verdict, Verdict)
    strict = json.loads(as_json.getvalue(), parse_constant=_refuse)
    assert strict["tests"][0]["verdict"] == str(outcome.verdict)
    size = sum(map(len, frames))
    assert used < CPU_FLOOR + CPU_PER_BYTE * size, (used, size)
    assert len(as_json.getvalue().encode()) <= (OUTPUT_KIB << 10) + MARGIN
    assert len(as_text.getvalue().encode()) <= 3 * ((OUTPUT_KIB << 10) + MARGIN)  # borders: 3 bytes each
    if hidden:
        assert strict["tests"][0].keys() == {"name", "hidden", "big", "verdict", "points", "max_points",
                                             "feedback", "cpu_seconds", "limit_seconds", "limit_source"}


def _refuse(name: str) -> None:
    raise ValueError(f"{name} in a report")
