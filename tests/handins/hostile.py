"""Hand-ins that once crashed, hung or bloated the grader (issue 25), as bytes: each must get its student a
verdict with the reason. Shared by the end-to-end tests and the fuzz tests' fixed examples."""

from __future__ import annotations

import json

DEPTH = 100_000


def _v3(level: object) -> bytes:
    return json.dumps({"nbformat": 3, "nbformat_minor": 0, "metadata": {}, "worksheets": [{"metadata": {}, "cells": [
        {"cell_type": "heading", "level": level, "source": "x", "metadata": {}}]}]}).encode()


NOTEBOOKS: dict[str, bytes] = {
    "deep": b'{"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [], "x": '
            + b"[" * DEPTH + b"]" * DEPTH + b"}",
    "minor-as-text": json.dumps({"nbformat": 4, "nbformat_minor": "5", "metadata": {}, "cells": []}).encode(),
    "heading-10e12": _v3(10**12),
    "heading-7e8": _v3(7 * 10**8),  # 1.4 GiB of '#' once converted, from a file of under 200 bytes
    "heading-text": _v3("2"),
    "version-float": json.dumps({"nbformat": 4.0, "nbformat_minor": 5, "metadata": {}, "cells": []}).encode(),
    "values": b'{"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [], "x": ['
              + b"0," * 2_000_000 + b"0]}",
}
