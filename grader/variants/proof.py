"""`grader validate --variants N`: the references proved on N variants (the seeds of N made-up students),
each reference rendered for the variant as the accepted one is: every accepted reference passes every test
of every variant, and every other reference gets its folder's verdict on every variant. A wrong reference
that passes a variant is named with the variant: that variant's tests cannot tell it from the right answer."""

from __future__ import annotations

import time

from grader.course import Course
from grader.errors import SpecError
from grader.grading import GradingRequest, Pace, grade
from grader.handins.base import Handin
from grader.model import Exercise, Verdict
from grader.validation.references import ACCEPTED, Reference, find_references
from grader.validation.results import ExerciseValidation, ReferenceCheck
from grader.variants import Variant, variant_of
from grader.variants.render import render_reference

DEFAULT_COUNT = 3  # variants proved by a plain `grader validate`
PROVING = "validate-{}"  # the made-up students whose variants are proved: the same N every run


def prove(course: Course, written: Exercise, count: int) -> ExerciseValidation:
    started = time.monotonic()
    result = ExerciseValidation(written)
    references, problems = find_references(written)
    result.failures += problems
    if not any(r.folder == ACCEPTED for r in references):
        result.fail(f"no accepted reference in {written.reference_dir / ACCEPTED}")
    result.notes.append(f"params: proved on {count} variant{'s' if count != 1 else ''} (grader validate "
                        f"--variants N for more); limits as the spec writes them (variants are not calibrated)")
    failed: dict[str, list[str]] = {}  # reference label -> the variants it failed on
    seen: set[str] = set()
    for number in range(count):
        try:
            variant = variant_of(written, PROVING.format(number))
        except SpecError as error:
            result.failures += [str(problem) for problem in error.problems]
            break
        drawn = repr(sorted(variant.values.items()))
        if drawn in seen:
            continue  # another seed drew the same values: the same variant, proved once
        seen.add(drawn)
        for reference in references:
            problem = _judge(course, variant, reference)
            if problem:
                failed.setdefault(f"{reference.folder}/{reference.path.name}", []).append(problem)
    for label, problems in failed.items():
        more = f" (and {len(problems) - 3} more variants)" if len(problems) > 3 else ""
        result.fail(f"{label}: {'; '.join(problems[:3])}{more}")
    for reference in references:
        label = f"{reference.folder}/{reference.path.name}"
        result.references.append(ReferenceCheck(reference.path, reference.folder, None, (), label not in failed,
                                                "; ".join(failed.get(label, []))[:300]))
    result.seconds = time.monotonic() - started
    return result


def _judge(course: Course, variant: Variant, reference: Reference) -> str:
    """Why the reference does not get its folder's verdict on this variant, or ""."""
    exercise = variant.exercise
    label = f"{reference.folder}/{reference.path.name}"
    where = f"variant {variant.id} ({_values(variant)})"
    try:
        source = render_reference(exercise, variant.values, reference.path.read_text(encoding="utf-8"), label)
    except SpecError as error:
        return f"{where}: {error.problems[0].message}"
    except (OSError, UnicodeDecodeError) as error:
        return f"cannot read it: {error}"
    accepted = reference.folder == ACCEPTED
    # A wrong or slow reference needs only its first failure: after a timeout the rest are skipped.
    request = GradingRequest(Pace.EVERY_TEST if accepted else Pace.FAIL_FAST,
                             private_paths=course.private_paths(), label=label)
    report = grade(exercise, reference.path, request, handin=Handin(source=source))
    if accepted:
        bad = [o for o in report.outcomes if o.verdict != Verdict.PASSED]
        return f"{where}: test '{bad[0].test}' {bad[0].verdict}: {bad[0].feedback}"[:300] if bad else ""
    if report.verdict == Verdict.PASSED:
        return f"{where}: it passes every test: this variant's tests cannot tell it from the accepted reference"
    if str(report.verdict) != reference.folder:
        return f"{where}: {report.verdict}, not {reference.folder}"
    return ""


def _values(variant: Variant) -> str:
    return ", ".join(f"{name}={value!r}" for name, value in variant.values.items())[:120]
