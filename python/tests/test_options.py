"""The kit's list of server options against the sandbox's own flags (its `--help`)."""
from __future__ import annotations

import os
import re
import shlex
import subprocess

from card_sandbox.launcher import env_name
from card_sandbox.options import KIT_OPTIONS, SERVER_FLAGS

#: Flags that say how the process runs, not what it serves: an attached run may have them.
PROCESS_FLAGS = {"pid-file", "exit-with-parent"}


def test_server_flags_are_the_sandboxs_serve_flags() -> None:
    command = shlex.split(os.environ["CARD_SANDBOX_COMMAND"])
    help_text = subprocess.run(
        [*command, "--help"], check=True, capture_output=True, text=True
    ).stdout
    serve = help_text[help_text.index("Flags of serve:") :]
    flags = re.findall(r"^  --([a-z-]+) ", serve, re.MULTILINE)
    variables = re.findall(r"env (CARD_SANDBOX_\w+)", serve)
    assert [f for f in flags if f not in PROCESS_FLAGS] == list(SERVER_FLAGS)
    assert [env_name(f) for f in flags] == variables


def test_each_kit_option_is_a_server_flag_with_its_pytest_names() -> None:
    assert {option.flag for option in KIT_OPTIONS} <= set(SERVER_FLAGS)
    names = {(o.pytest_flag, o.ini, o.variable) for o in KIT_OPTIONS}
    assert ("--card-sandbox-scenario", "card_sandbox_scenarios", "CARD_SANDBOX_SCENARIO") in names
    assert (
        "--card-sandbox-sdk-compat",
        "card_sandbox_sdk_compat",
        "CARD_SANDBOX_SDK_COMPAT",
    ) in names
