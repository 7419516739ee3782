"""
The kit's own suite. It runs with the package installed (`pip install --no-index ./python` into
a fresh virtual environment, as scripts/python-kit.sh does), so the plugin under test is the one
pytest loads through its entry point, and its `sandbox` fixtures serve these tests too. Every
test talks to a real sandbox: `CARD_SANDBOX_COMMAND` names the repository's build
(`node dist/bin/card-sandbox.js`); the inner runs (`pytester`) start their own from it.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any, Callable, Dict, Optional

import pytest

pytest_plugins = ["pytester"]

REPO = Path(__file__).resolve().parents[2]

#: The identity of a card user created with the whole identity (verified after its delay).
IDENTITY = {
    "first_name": "Awa",
    "last_name": "Diop",
    "address": "12 Rue Carnot, Dakar",
    "phone": "+221770000001",
    "email": "awa@example.com",
    "id_no": "1234567890123",
    "selfie_image": "https://example.com/s.jpg",
    "id_image": "https://example.com/f.jpg",
}


def node_json(script: str) -> Any:
    """Runs a Node script (an ES module, cwd the repository) and parses what it prints."""
    node = shutil.which("node")
    if node is None:
        pytest.fail("node is not on PATH: the kit's tests run beside the sandbox, which needs it")
    out = subprocess.run(
        [node, "--input-type=module", "-e", script],
        cwd=REPO,
        check=True,
        capture_output=True,
        text=True,
    )
    return json.loads(out.stdout)


def eventually(check: Callable[[], Any], timeout: float = 10.0, interval: float = 0.05) -> Any:
    """Polls `check` until it returns something truthy, within a bound; fails naming it."""
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            pytest.fail(
                f"{getattr(check, '__name__', 'condition')} did not hold within {timeout} s"
            )
        time.sleep(interval)


def process_gone(pid: int) -> bool:
    """Whether `pid` has exited (a zombie, dead but not yet reaped, counts as gone)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True
    return stat[stat.rindex(")") + 2] == "Z"


@pytest.fixture
def inner_env(monkeypatch: pytest.MonkeyPatch) -> Dict[str, Optional[str]]:
    """
    The environment of an inner run that starts its own sandbox: no CARD_SANDBOX_URL (this run's
    own, which would make it attach) nor any CARD_SANDBOX_* option variable of the caller's.
    """
    for name in list(os.environ):
        if name.startswith("CARD_SANDBOX_") and name != "CARD_SANDBOX_COMMAND":
            monkeypatch.delenv(name)
    return {"CARD_SANDBOX_COMMAND": os.environ.get("CARD_SANDBOX_COMMAND")}
