"""
Finding the `card-sandbox` command and running it for a test run. The plugin uses it; so can any
harness (and a kit for another language follows the same steps, docs/python.md "How the kit
finds and starts the sandbox"):

1. **Find the command**, first match wins: `CARD_SANDBOX_COMMAND` (split as a shell would, e.g.
   `node /path/to/card-sandbox/dist/bin/card-sandbox.js`); else `node_modules/.bin/card-sandbox`
   in the project directory or one above it; else `npx --no -- card-sandbox` (never installs;
   when npx cannot run it, the next); else `card-sandbox` on PATH. None: `SandboxNotFound`,
   saying what was tried and the two ways out.
2. **Start it** as `serve --port 0 --clock manual --log json --exit-with-parent on`, in a
   process group of its own, with a stdin pipe that is kept open: with `--exit-with-parent on`
   the sandbox exits by itself when that pipe closes, so a harness killed with SIGKILL leaves no
   sandbox behind. A `CARD_SANDBOX_*` variable set for an option means no flag for it (the
   variable wins; the sandbox reads it).
3. **Read the address** from the JSON `listening` line (`api`, `health`, `version`), then ask
   `GET /__sandbox/health` until it answers.
4. **Drain its output** in a thread for as long as it runs (a pipe nobody reads fills, and the
   sandbox then blocks writing its log), keeping the last lines for error messages.
5. **Stop it**: SIGTERM the group, wait, SIGKILL what is left, close stdin.
"""
from __future__ import annotations

import atexit
import collections
import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Deque, Dict, List, Mapping, Optional, Sequence

#: How many of the sandbox's last output lines an error message shows.
KEPT_LINES = 30

#: The flags that run the sandbox for a harness, each left out when its variable is set
#: (`--log json` and `--exit-with-parent on` always: the harness needs them).
RUN_FLAGS = (("port", "0"), ("clock", "manual"))
ALWAYS_FLAGS = ("--log", "json", "--exit-with-parent", "on")

INSTALL_HINT = (
    "Two ways out: install card-sandbox in the project with npm (then node_modules/.bin/"
    "card-sandbox is found; see docs/testing.md, 'Add it to your project'), or point the kit "
    "at a sandbox already running: CARD_SANDBOX_URL=http://127.0.0.1:4010 (or set "
    "CARD_SANDBOX_COMMAND to the command that starts one)."
)


def env_name(flag: str) -> str:
    """The variable of a sandbox flag: `sdk-compat` → `CARD_SANDBOX_SDK_COMPAT`."""
    return "CARD_SANDBOX_" + flag.upper().replace("-", "_")


class SandboxNotFound(RuntimeError):
    """No command to start a sandbox with; the message says what was tried."""


class SandboxStartError(RuntimeError):
    """The command ran but no sandbox came up; the message holds its last lines."""


@dataclass(frozen=True)
class Candidate:
    """A way to run card-sandbox, and how it was found."""

    argv: List[str]
    #: `CARD_SANDBOX_COMMAND`, `node_modules/.bin`, `npx`, `PATH`.
    source: str
    #: When it cannot run card-sandbox, try the next (npx, which may not find it).
    may_be_missing: bool = False

    def describe(self) -> str:
        return f"{shlex.join(self.argv)} ({self.source})"


def find_candidates(
    project_dir: Path, env: Mapping[str, str], tried: Optional[List[str]] = None
) -> List[Candidate]:
    """The ways to run card-sandbox, in order; `tried` collects the places that had nothing."""
    tried = [] if tried is None else tried
    command = env.get("CARD_SANDBOX_COMMAND", "").strip()
    if command:
        return [Candidate(shlex.split(command), "CARD_SANDBOX_COMMAND")]
    tried.append("CARD_SANDBOX_COMMAND (not set)")
    local = local_bin(project_dir)
    if local is not None:
        return [Candidate([str(local)], "node_modules/.bin")]
    tried.append(f"node_modules/.bin/card-sandbox in {project_dir} and the folders above it")
    found: List[Candidate] = []
    path = env.get("PATH", os.defpath)
    npx = shutil.which("npx", path=path)
    if npx is not None:
        found.append(Candidate([npx, "--no", "--", "card-sandbox"], "npx", may_be_missing=True))
    else:
        tried.append("npx (not on PATH)")
    on_path = shutil.which("card-sandbox", path=path)
    if on_path is not None:
        found.append(Candidate([on_path], "PATH"))
    else:
        tried.append("card-sandbox on PATH")
    return found


def local_bin(directory: Path) -> Optional[Path]:
    """`node_modules/.bin/card-sandbox` in `directory` or the nearest folder above that has it."""
    name = "card-sandbox.cmd" if sys.platform == "win32" else "card-sandbox"
    for folder in [directory, *directory.parents]:
        candidate = folder / "node_modules" / ".bin" / name
        if candidate.is_file():
            return candidate
    return None


def serve_arguments(options: Sequence[str] = (), env: Mapping[str, str] = os.environ) -> List[str]:
    """
    The flags after the command: the run flags whose variable is not set, the two a harness
    needs, then `options` (the harness's own, e.g. `--seed 1`, already without those a variable
    sets).
    """
    flags: List[str] = []
    for name, value in RUN_FLAGS:
        if env_name(name) not in env:
            flags += [f"--{name}", value]
    return flags + list(ALWAYS_FLAGS) + list(options)


@dataclass
class SandboxProcess:
    """A sandbox this process started: its address, its banner, and how to stop it."""

    process: "subprocess.Popen[bytes]"
    candidate: Candidate
    argv: List[str]
    #: The sandbox's origin, `http://127.0.0.1:<port>` (its API is under `/v1`).
    url: str = ""
    #: The JSON `listening` line: version, api, health, clock, quirks, seed, scenarios, …
    banner: Dict[str, Any] = field(default_factory=dict)
    _lines: Deque[str] = field(default_factory=lambda: collections.deque(maxlen=KEPT_LINES))
    _listening: threading.Event = field(default_factory=threading.Event)
    _drain: Optional[threading.Thread] = None
    _stopped: bool = False

    @property
    def pid(self) -> int:
        return self.process.pid

    @property
    def version(self) -> str:
        return str(self.banner.get("version", "?"))

    def last_lines(self) -> str:
        return "\n".join(f"  | {line}" for line in list(self._lines)) or "  (no output)"

    def _drain_output(self) -> None:
        """Reads every line for as long as the sandbox runs; notes the banner."""
        stream = self.process.stdout
        assert stream is not None
        for raw in iter(stream.readline, b""):
            line = raw.decode("utf-8", errors="replace").rstrip("\n")
            self._lines.append(line)
            if not self._listening.is_set() and line.startswith("{"):
                try:
                    parsed = json.loads(line)
                except ValueError:
                    continue
                if isinstance(parsed, dict) and parsed.get("event") == "listening":
                    self.banner = parsed
                    self._listening.set()
        stream.close()

    def wait_until_ready(self, timeout: float) -> None:
        """Until the banner is out and health answers; else SandboxStartError (and stopped)."""
        deadline = time.monotonic() + timeout
        while not self._listening.wait(0.05):
            if self.process.poll() is not None:
                self._join_drain(2.0)
                raise SandboxStartError(
                    f"{self.candidate.describe()} exited ({self.process.returncode}) "
                    f"before it was listening:\n{self.last_lines()}"
                )
            if time.monotonic() > deadline:
                raise SandboxStartError(
                    f"{self.candidate.describe()} was not listening after {timeout:g} s:\n"
                    f"{self.last_lines()}"
                )
        health = str(self.banner.get("health", ""))
        self.url = health[: -len("/__sandbox/health")] if health else ""
        while not answers(health):
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise SandboxStartError(
                    f"{self.candidate.describe()} printed its address but {health} does not "
                    f"answer:\n{self.last_lines()}"
                )
            time.sleep(0.05)

    def stop(self, timeout: float = 10.0) -> None:
        """SIGTERMs the process group, waits, SIGKILLs what is left; closes stdin."""
        if self._stopped:
            return
        self._stopped = True
        if self.process.poll() is None:
            # the group: through npx, npm and its shell around node
            _signal_group(self.process, signal.SIGTERM)
            try:
                self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                _signal_group(self.process, getattr(signal, "SIGKILL", signal.SIGTERM))
                self.process.wait()
        if self.process.stdin is not None:
            try:
                self.process.stdin.close()
            except OSError:
                pass
        self._join_drain(timeout)

    def _join_drain(self, timeout: float) -> None:
        if self._drain is not None:
            self._drain.join(timeout)


def _signal_group(process: "subprocess.Popen[bytes]", signum: int) -> None:
    try:
        if hasattr(os, "killpg"):
            os.killpg(process.pid, signum)
        else:  # pragma: no cover - Windows: no process groups to signal
            process.send_signal(signum)
    except (ProcessLookupError, PermissionError):
        pass


def answers(health_url: str) -> bool:
    """Whether `GET /__sandbox/health` answers 200."""
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        with opener.open(health_url, timeout=2) as response:
            return int(response.status) == 200
    except (urllib.error.URLError, OSError, ValueError):
        return False


def start_candidate(
    candidate: Candidate,
    options: Sequence[str] = (),
    cwd: Optional[Path] = None,
    env: Optional[Mapping[str, str]] = None,
    timeout: float = 60.0,
) -> SandboxProcess:
    """Runs one way of starting card-sandbox until it answers; stopped again if it does not."""
    environment = dict(os.environ if env is None else env)
    argv = candidate.argv + serve_arguments(options, environment)
    popen_group: Dict[str, Any] = (
        {"creationflags": subprocess.CREATE_NEW_PROCESS_GROUP}  # type: ignore[attr-defined]
        if sys.platform == "win32"
        else {"start_new_session": True}
    )
    try:
        process = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            cwd=None if cwd is None else str(cwd),
            env=environment,
            **popen_group,
        )
    except OSError as error:
        raise SandboxStartError(
            f"card-sandbox: {candidate.describe()} could not run: {error}.\n{INSTALL_HINT}"
        ) from None
    sandbox = SandboxProcess(process, candidate, argv)
    atexit.register(sandbox.stop)
    sandbox._drain = threading.Thread(
        target=sandbox._drain_output, name="card-sandbox output", daemon=True
    )
    sandbox._drain.start()
    try:
        sandbox.wait_until_ready(timeout)
    except BaseException:
        # a failed start and a Ctrl-C while waiting leave nothing running
        sandbox.stop()
        raise
    return sandbox


def start_sandbox(
    project_dir: Path,
    options: Sequence[str] = (),
    env: Optional[Mapping[str, str]] = None,
    timeout: float = 60.0,
) -> SandboxProcess:
    """
    Finds card-sandbox from `project_dir` and starts it (step 1 to 4 above). A candidate that
    may be missing (npx) and fails gives way to the next; the error names every attempt.
    """
    environment = dict(os.environ if env is None else env)
    tried: List[str] = []
    failures: List[str] = []
    for candidate in find_candidates(project_dir, environment, tried):
        try:
            return start_candidate(candidate, options, project_dir, environment, timeout)
        except SandboxStartError as error:
            if not candidate.may_be_missing:
                raise
            failures.append(str(error))
    lines = [f"card-sandbox: no sandbox could be started. Tried: {'; '.join(tried)}."]
    lines += failures
    lines.append(INSTALL_HINT)
    raise SandboxNotFound("\n".join(lines))
