"""Bytes to Python source as Python itself reads it: UTF-8 (a byte-order mark allowed), or the encoding a
PEP 263 coding line on line 1 or 2 declares; a file Python would refuse is refused, saying where and what
to do."""

from __future__ import annotations

import os
from pathlib import Path

MAX_FILE_BYTES = 1 << 20
SAVE_AS_UTF8 = "save the file as UTF-8 (or declare its encoding on line 1 or 2, e.g. '# -*- coding: gbk -*-')"


def read_bytes(path: Path, limit: int = MAX_FILE_BYTES) -> tuple[bytes | None, str]:
    """The file's bytes, or (None, why not): a multi-GB hand-in is never read whole."""
    try:
        with path.open("rb") as handle:
            data = handle.read(limit + 1)
            size = os.fstat(handle.fileno()).st_size
    except OSError as error:
        return None, f"cannot read the file: {error.strerror}"
    if len(data) > limit:
        return None, f"the file is {size} bytes; the limit is {limit}"
    return data, ""


def python_text(data: bytes, what: str = "the file") -> tuple[str | None, str]:
    """The text of Python source `data`, or (None, why Python would refuse it)."""
    if b"\0" in data:
        return None, f"{what} is binary, not Python text"
    head = data.split(b"\n", 2)[:2]
    if any(b"coding" in line for line in head):
        return _declared(data, what)
    try:
        # A byte-order mark is dropped by hand: the utf-8-sig codec is a module of its own to import (~1 ms).
        return data.decode("utf-8").removeprefix("\ufeff"), ""
    except UnicodeDecodeError as error:
        return None, _bad_byte(data, error, "UTF-8", what)


def _declared(data: bytes, what: str) -> tuple[str | None, str]:
    import io
    import tokenize  # only for a file that declares an encoding

    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as error:  # an unknown encoding, or a declaration that contradicts a byte-order mark
        return None, f"{what} cannot be read: {error.msg if hasattr(error, 'msg') else error}; {SAVE_AS_UTF8}"
    try:
        return data.decode(encoding).removeprefix("\ufeff"), ""
    except UnicodeDecodeError as error:
        return None, _bad_byte(data, error, encoding, what)


def _bad_byte(data: bytes, error: UnicodeDecodeError, encoding: str, what: str) -> str:
    line = data.count(b"\n", 0, error.start) + 1
    column = error.start - (data.rfind(b"\n", 0, error.start) + 1) + 1
    return (f"{what} is not {encoding} text: line {line}, column {column} holds the byte "
            f"0x{data[error.start]:02x}, which Python refuses; {SAVE_AS_UTF8}")
