"""Validators for the shipped schemas, with relative $refs (grades -> report) resolved among them."""

from __future__ import annotations

import functools

from jsonschema import Draft202012Validator
from referencing import Registry, Resource

from grader.schemas import NAMES, load


@functools.cache
def validator(name: str) -> Draft202012Validator:
    registry: Registry = Registry().with_resources(
        (f"{other}.schema.json", Resource.from_contents(load(other))) for other in NAMES)
    schema = load(name)
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema, registry=registry)


def problems(name: str, document: object) -> list[str]:
    """Every way `document` breaks schema `name`, as 'path: message'."""
    return [f"{'/'.join(map(str, error.absolute_path)) or '(top)'}: {error.message}"
            for error in validator(name).iter_errors(document)]
