"""A test's `feedback` as a spec writes it: one text for a wrong answer or a runtime error (PLAIN_VERDICTS),
or texts by verdict (`any`: every failure not written otherwise), and for a wrong answer by what its check
found:

    feedback: Make the board's sets in __init__.
    feedback:
      wrong_answer:
        type: Return a tuple, not a list.
        any: Make the board's sets in __init__.
      timeout: A loop that never ends?
"""

from __future__ import annotations

import difflib
import re
from typing import TYPE_CHECKING

from grader.model import CHECK_REASONS

if TYPE_CHECKING:
    import yaml

    from grader.spec_reader import SpecReader

ANY = "any"  # the text for every failure (or every wrong answer) not written otherwise
# Every way a run can fail, each a key of a per-verdict `feedback`.
VERDICT_KEYS = ("wrong_answer", "runtime_error", "timeout", "memory_limit", "output_limit", "syntax_error",
                "rule_violation", "skipped")
PLAIN_VERDICTS = ("wrong_answer", "runtime_error")  # where a plain-text `feedback` applies
_OWN_REASON = re.compile(r"[a-z][a-z0-9_]*\Z")  # what a course's own checker may call what it found


def read_feedback(reader: SpecReader, node: yaml.Node | None, where: str, own_checker: bool) -> dict[str, object]:
    """The Test fields `feedback` and `feedback_by` (`own_checker`: a course's checker, which names its own
    reasons; otherwise a wrong answer's keys are CHECK_REASONS)."""
    import yaml

    if not isinstance(node, yaml.MappingNode):
        # A plain text is a hint about the answer: shown for a wrong answer or an error the code raised,
        # never for a timeout, a file that does not load, a broken rule or a test skipped.
        text = reader.text(node, f"feedback of {where}")
        return {"feedback": "", "feedback_by": tuple((key, text) for key in PLAIN_VERDICTS if text)}
    texts: dict[str, str] = {}
    for key, value in _entries(reader, node, (ANY, *VERDICT_KEYS), f"feedback of {where}"):
        if key == "wrong_answer" and isinstance(value, yaml.MappingNode):
            reasons = None if own_checker else (ANY, *CHECK_REASONS)
            for reason, text in _entries(reader, value, reasons, f"feedback of {where}: wrong_answer"):
                texts[key if reason == ANY else f"{key}.{reason}"] = reader.text(text, f"feedback of {where}: "
                                                                                       f"wrong_answer: {reason}")
        else:
            texts[key] = reader.text(value, f"feedback of {where}: {key}")
    return {"feedback": texts.pop(ANY, ""), "feedback_by": tuple(texts.items())}


def _entries(reader: SpecReader, node: yaml.MappingNode, allowed: tuple[str, ...] | None,
             where: str) -> list[tuple[str, yaml.Node]]:
    """The mapping's (key, value) pairs; an unknown or repeated key is a problem at its line (`allowed`
    None: any lower-case name)."""
    found: list[tuple[str, yaml.Node]] = []
    for key_node, value in node.value:
        key = str(key_node.value)
        if allowed is None and not _OWN_REASON.match(key):
            reader.problem(key_node, f"'{key}' in {where} is no name of what a check found (lower-case letters, "
                                     f"digits and _)")
        elif allowed is not None and key not in allowed:
            close = difflib.get_close_matches(key, allowed, n=1)
            hint = f" (did you mean '{close[0]}'?)" if close else f"; known keys: {', '.join(allowed)}"
            reader.problem(key_node, f"unknown key '{key}' in {where}{hint}")
        elif any(key == seen for seen, _ in found):
            reader.problem(key_node, f"key '{key}' appears twice in {where}")
        else:
            found.append((key, value))
    return found
