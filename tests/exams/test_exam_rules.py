"""The exam's rules as pure functions of the exam, the student, their start and the server's time: a
student's end is min(their window's close, their start + their duration x their time factor)."""

from __future__ import annotations

import ipaddress

import pytest

from grader.server.exams import (
    Exam,
    Own,
    address_refusal,
    ends_at,
    feedback_now,
    phase,
    save_refusal,
    seconds_left,
    start_refusal,
)

MINUTE = 60.0
T0 = 1_800_000_000.0  # the window opens here (2027-01-15)


def exam(**changes: object) -> Exam:
    made = {"id": "midterm", "title": "Midterm", "exercises": ("add",), "opens": T0, "closes": T0 + 240 * MINUTE,
            "duration": 60 * MINUTE}
    return Exam(**{**made, **changes})  # type: ignore[arg-type]


def test_a_time_factor_of_1_5_on_a_60_minute_exam_takes_a_save_at_minute_89_and_refuses_one_at_91() -> None:
    accommodated = exam(students={"alice": Own(time_factor=1.5)})
    start = T0 + 10 * MINUTE
    assert save_refusal(accommodated, "alice", start, start + 89 * MINUTE) is None
    refused = save_refusal(accommodated, "alice", start, start + 91 * MINUTE)
    assert refused is not None and "ended" in refused and "graded" in refused
    assert save_refusal(accommodated, "bob", start, start + 61 * MINUTE) is not None  # bob's factor is 1
    assert exam(time_factor=1.5).terms("bob").duration == 90 * MINUTE  # the exam's own factor, for everyone


def test_the_end_is_the_window_s_close_when_it_comes_before_the_duration_runs_out() -> None:
    late_start = T0 + 220 * MINUTE
    assert ends_at(exam(), "bob", late_start) == T0 + 240 * MINUTE
    assert seconds_left(exam(), "bob", late_start, late_start) == 20 * MINUTE  # not the full hour
    assert seconds_left(exam(), "bob", None, late_start) is None  # before the start: no clock runs


def test_a_student_s_own_window_and_duration_replace_the_exam_s() -> None:
    own = exam(students={"carol": Own(opens=T0 + 1000 * MINUTE, closes=T0 + 1200 * MINUTE, duration=30 * MINUTE)})
    assert start_refusal(own, "carol", None, T0 + MINUTE) is not None  # the exam's window is not hers
    assert start_refusal(own, "carol", None, T0 + 1001 * MINUTE) is None
    assert ends_at(own, "carol", T0 + 1001 * MINUTE) == T0 + 1031 * MINUTE
    assert start_refusal(own, "bob", None, T0 + 1001 * MINUTE) is not None  # bob's window closed


@pytest.mark.parametrize("started,now,expected", [
    (None, T0 - 1, "not-open"), (None, T0, "open"), (None, T0 + 240 * MINUTE, "closed"),
    (T0, T0 + 59 * MINUTE, "running"), (T0, T0 + 60 * MINUTE, "ended"),
], ids=["before the window", "at its opening", "after its close", "started, time left", "started, time up"])
def test_the_phase_follows_the_server_s_clock(started: float | None, now: float, expected: str) -> None:
    assert phase(exam(), "bob", started, now) == expected


def test_a_save_before_the_start_is_refused_and_staff_may_start_a_test_run_at_any_time() -> None:
    assert "start the exam" in str(save_refusal(exam(), "bob", None, T0 + MINUTE))
    assert "opens at" in str(start_refusal(exam(), "bob", None, T0 - 1))
    assert start_refusal(exam(), "prof", None, T0 - 1, staff=True) is None


@pytest.mark.parametrize("address,taken", [
    ("10.9.3.4", True), ("10.8.0.1", False), ("::ffff:10.9.0.7", True), ("2001:db8::1", True),
    ("2001:db9::1", False), ("not an address", False), (None, False), ("10.9.3.4\x00", False),
], ids=["in the room", "another network", "IPv4 written as IPv6", "in the IPv6 room", "outside it",
        "garbage", "unknown", "a NUL"])
def test_the_address_ranges_take_only_the_rooms(address: str | None, taken: bool) -> None:
    rooms = exam(addresses=(ipaddress.ip_network("10.9.0.0/16"), ipaddress.ip_network("2001:db8::/32")))
    assert (address_refusal(rooms, address) is None) is taken
    assert address_refusal(exam(), address) is None  # no ranges: anywhere


def test_feedback_is_the_exam_s_rule_until_results_at_then_everything() -> None:
    hidden = exam(feedback="none", results_at=T0 + 300 * MINUTE)
    assert feedback_now(hidden, T0 + 299 * MINUTE) == "none" and feedback_now(hidden, T0 + 300 * MINUTE) == "all"
    visible = exam(students={"dan": Own(closes=T0 + 500 * MINUTE)})  # no results_at: the last window's close
    assert feedback_now(visible, T0 + 499 * MINUTE) == "visible" and feedback_now(visible, T0 + 500 * MINUTE) == "all"
