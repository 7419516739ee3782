"""
The sandbox options a kit sets (seed, scenario files, quirks, sdk-compat, webhook secret) and
where each comes from: a `CARD_SANDBOX_*` variable first, then the runner's own setting (a pytest
flag, then an ini key). A variable's option gets no flag: the sandbox reads the variable itself,
so it wins, as it does for the Node kits.

With `CARD_SANDBOX_URL` set before the run the kit attaches to that sandbox and starts none, so
a server option given any way (a kit setting, or a variable of any serve flag) is refused.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Mapping, Optional, Sequence, Tuple

from .launcher import env_name

#: Every serve flag that sets up what the sandbox serves (`card-sandbox --help`, "Flags of
#: serve"); --pid-file and --exit-with-parent say how the process runs and are left out.
#: tests/test_options.py compares this list with the built CLI's help.
SERVER_FLAGS = (
    "port",
    "host",
    "allowed-host",
    "public-url",
    "cors",
    "db",
    "db-wait",
    "seed",
    "tokens",
    "speed",
    "clock",
    "clock-start",
    "quirks",
    "sdk-compat",
    "rate-limit",
    "log",
    "journal",
    "scenario",
    "fixtures",
    "webhook-url",
    "webhook-secret",
    "webhook-extensions",
)


@dataclass(frozen=True)
class KitOption:
    """A sandbox option the kit takes as a setting of its own."""

    #: The sandbox's flag: `sdk-compat` (`--sdk-compat`, `CARD_SANDBOX_SDK_COMPAT`).
    flag: str
    help: str
    choices: Optional[Tuple[str, ...]] = None
    #: Given more than once (files); its variable is a comma-separated list.
    repeatable: bool = False
    #: Passed to the sandbox in its environment, not its command line (a secret stays out of `ps`).
    secret: bool = False

    @property
    def pytest_flag(self) -> str:
        return f"--card-sandbox-{self.flag}"

    @property
    def ini(self) -> str:
        return "card_sandbox_" + self.flag.replace("-", "_") + ("s" if self.repeatable else "")

    @property
    def variable(self) -> str:
        return env_name(self.flag)


KIT_OPTIONS = (
    KitOption(
        "seed", "seed for ids, names and card numbers: same seed + same requests = same bytes"
    ),
    KitOption(
        "scenario",
        "a scenario file in force for every tenant (repeatable; relative to the rootdir)",
        repeatable=True,
    ),
    KitOption(
        "quirks", "answer like the real service's examples (on, the default) or not", ("on", "off")
    ),
    KitOption(
        "sdk-compat",
        "add the keys the official SDKs read but the real service lacks (off, the default)",
        ("on", "off"),
    ),
    KitOption(
        "webhook-secret",
        "what signs every tenant's webhooks (default: each tenant's token)",
        secret=True,
    ),
)


@dataclass(frozen=True)
class Given:
    """An option given to the kit, and where: `--card-sandbox-seed`, `card_sandbox_seed (ini)`."""

    option: KitOption
    values: Tuple[str, ...]
    where: str


def resolve(
    env: Mapping[str, str],
    flags: Mapping[str, Sequence[str]],
    ini: Mapping[str, Sequence[str]],
) -> List[Given]:
    """
    The kit's own settings: each option from a flag, else from the ini, unless its variable is
    set (the sandbox reads that). `flags` and `ini` hold each option's values by its flag name
    (empty: not given).
    """
    given: List[Given] = []
    for option in KIT_OPTIONS:
        if option.variable in env:
            continue
        if flags.get(option.flag):
            given.append(Given(option, tuple(flags[option.flag]), option.pytest_flag))
        elif ini.get(option.flag):
            given.append(Given(option, tuple(ini[option.flag]), f"{option.ini} (ini)"))
    return given


def check_values(given: Sequence[Given]) -> None:
    """A value outside an option's choices is a ValueError naming where it was given."""
    for item in given:
        for value in item.values:
            if item.option.choices and value not in item.option.choices:
                choices = " or ".join(item.option.choices)
                raise ValueError(f"{item.where} must be {choices} (got {value!r})")


def sandbox_flags(given: Sequence[Given], base: Path) -> List[str]:
    """The command-line flags for the settings (scenario files made absolute from `base`)."""
    flags: List[str] = []
    for item in given:
        if item.option.secret:
            continue
        for value in item.values:
            if item.option.flag == "scenario":
                value = str((base / value).resolve())
            flags += [f"--{item.option.flag}", value]
    return flags


def sandbox_environment(given: Sequence[Given]) -> Dict[str, str]:
    """The variables to set for the sandbox: the secret settings."""
    return {item.option.variable: item.values[-1] for item in given if item.option.secret}


def server_variables(env: Mapping[str, str]) -> List[str]:
    """The `CARD_SANDBOX_*` variables set that name a server option."""
    return [env_name(flag) for flag in SERVER_FLAGS if env_name(flag) in env]


def attach_conflicts(url: str, given: Sequence[Given], env: Mapping[str, str]) -> Optional[str]:
    """
    Why a run cannot attach to the sandbox at `url` with these settings, or None: an attached
    sandbox runs as it was started, so a server option given to the kit would silently not apply.
    """
    named = [item.where for item in given] + [
        f"{name} (variable)" for name in server_variables(env)
    ]
    if not named:
        return None
    return (
        f"CARD_SANDBOX_URL={url} names a running sandbox: the kit attaches to it and starts "
        f"none, so it cannot apply the server options given: {', '.join(named)}. Start that "
        "sandbox with them, or unset CARD_SANDBOX_URL to let the kit start its own."
    )
