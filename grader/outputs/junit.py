"""junit.xml: one <testsuite> per student, one <testcase> per test of each exercise, in the common JUnit
schema CI tools read (valid against the Jenkins xUnit plugin's junit-10.xsd): a wrong answer (or a missing
file, or a rule broken) is a <failure>, a program that crashed, timed out or could not run is an <error>, a
skipped test is <skipped>. A <testcase> has no properties in that schema, so each test's points are
properties of its student's suite: `points:<exercise>:<test>` and `max_points:<exercise>:<test>`; a spec's
`quality:` adds `quality_deduction:<exercise>`, the points its code quality took off."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path

from grader.gradebook import Gradebook
from grader.model import Outcome, Verdict
from grader.outputs import Output
from grader.outputs.files import write_atomic
from grader.text import escape_controls, plain_body, points

FILE = "junit.xml"
FAILURES = {Verdict.WRONG_ANSWER, Verdict.MISSING, Verdict.RULE_VIOLATION}
# XML 1.0 cannot carry these characters at all, escaped or not: student output shows them as \xNN.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff\ud800-\udfff]")


def xml_text(text: str) -> str:
    """Text as XML 1.0 carries it and a CI page shows it: controls, bidirectional overrides and lone
    surrogates as escapes (escape_controls), then anything XML still refuses."""
    return _NOT_XML.sub(lambda m: f"\\x{ord(m.group()):02x}", escape_controls(text))


def element(book: Gradebook) -> ET.Element:
    root = ET.Element("testsuites", name="grader batch")
    totals = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    seconds = 0.0
    for student in book.students:
        suite = ET.SubElement(root, "testsuite", name=xml_text(student))
        counts = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
        properties = ET.SubElement(suite, "properties")
        ET.SubElement(properties, "property", name="total", value=points(book.total(student)))
        ET.SubElement(properties, "property", name="max_total", value=points(book.max_total))
        suite_seconds = 0.0
        for cell in book.row(student):
            if cell is None:
                continue
            if cell.report.quality is not None:  # code quality's deduction: a property, as the tests' points
                ET.SubElement(properties, "property", name=f"quality_deduction:{xml_text(cell.exercise)}",
                              value=points(cell.report.quality.deduction))
            for outcome in cell.report.outcomes:
                test = xml_text(f"{cell.exercise}:{outcome.test}")
                ET.SubElement(properties, "property", name=f"points:{test}", value=points(outcome.points))
                ET.SubElement(properties, "property", name=f"max_points:{test}", value=points(outcome.max_points))
                case = ET.SubElement(suite, "testcase", classname=xml_text(f"{student}.{cell.exercise}"),
                                     name=xml_text(outcome.test), time=f"{outcome.cpu_seconds:.3f}")
                suite_seconds += outcome.cpu_seconds
                counts["tests"] += 1
                kind = _child(outcome)
                if kind:
                    counts[{"failure": "failures", "error": "errors", "skipped": "skipped"}[kind]] += 1
                    problem = ET.SubElement(case, kind, message=xml_text(outcome.feedback or str(outcome.verdict)),
                                            type=str(outcome.verdict))
                    problem.text = xml_text(plain_body(outcome))
        suite.attrib.update({name: str(count) for name, count in counts.items()}, time=f"{suite_seconds:.3f}")
        for name in totals:
            totals[name] += counts[name]
        seconds += suite_seconds
    # The schema allows no `skipped` on <testsuites> (Jenkins rejects the file): it stays on each suite.
    root.attrib.update({name: str(count) for name, count in totals.items() if name != "skipped"},
                       time=f"{seconds:.3f}")
    return root


def _child(outcome: Outcome) -> str:
    if outcome.verdict == Verdict.PASSED:
        return ""
    if outcome.verdict == Verdict.SKIPPED:
        return "skipped"
    return "failure" if outcome.verdict in FAILURES else "error"


class JUnitXml(Output):
    def write(self, book: Gradebook, folder: Path) -> list[Path]:
        tree = element(book)
        ET.indent(tree)
        text = ET.tostring(tree, encoding="unicode", xml_declaration=False)
        return [write_atomic(folder / FILE, '<?xml version="1.0" encoding="utf-8"?>\n' + text + "\n")]
