"""The grader's own name and version as installed: results, bundles and a batch's keys name it."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

DISTRIBUTION = "yaml-grader"  # the distribution's name: `grader` on the package index is an unrelated 2012 project


def grader_version() -> str:
    try:
        return version(DISTRIBUTION)
    except PackageNotFoundError:
        return "unknown"
