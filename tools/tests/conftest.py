# SPDX-License-Identifier: BSD-3-Clause
import os
import textwrap
from pathlib import Path

import pytest

from flashvp.server import find_server


@pytest.fixture(scope="session")
def server() -> str:
    """The vp-server under test ($FLASHVP_SERVER from ctest, else build/bin)."""
    return find_server(os.environ.get("FLASHVP_SERVER"))


@pytest.fixture
def write(tmp_path):
    """write(name, text) -> path of a file in the test's scratch folder."""

    def _write(name: str, text: str) -> Path:
        p = tmp_path / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(textwrap.dedent(text))
        return p

    return _write
