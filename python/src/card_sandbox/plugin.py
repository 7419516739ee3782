"""
The pytest plugin (entry point `pytest11: card_sandbox`, so installing the package is all it
takes; `-p no:card_sandbox` switches it off). docs/python.md is its guide.

- **One sandbox for the run.** With `CARD_SANDBOX_URL` unset, the session starts one before
  collection (launcher.py: on a free port, manual clocks, its output drained, exiting with this
  process) and sets `CARD_SANDBOX_URL` to it for the code under test; it is stopped at the end
  of the run, on Ctrl-C too. With `CARD_SANDBOX_URL` set before the run, the kit attaches to that
  sandbox and starts none, refusing any server option also given, and puts each test tenant's
  clock in manual mode. The report header's first line says which.
- **Under pytest-xdist** the controller starts (or attaches to) the sandbox and hands its URL to
  the workers (`pytest_configure_node`): one sandbox serves the whole run.
- **Fixtures**: `sandbox` (a client bound to a tenant of its own for each test, reset when the
  test starts), `sandbox_env` (the code under test's settings, through monkeypatch),
  `webhook_receiver`, and `sandbox_server` (the run's sandbox: url, pid, version).
"""
from __future__ import annotations

import hashlib
import os
import secrets
from dataclasses import dataclass
from typing import Any, Callable, Dict, Iterator, List, Optional, TypeVar, cast

import pytest

from .client import SandboxClient, sandbox_origin, sandbox_settings
from .launcher import (
    SandboxNotFound,
    SandboxProcess,
    SandboxStartError,
    answers,
    start_sandbox,
)
from .options import (
    KIT_OPTIONS,
    Given,
    attach_conflicts,
    check_values,
    resolve,
    sandbox_environment,
    sandbox_flags,
)
from .receiver import WebhookReceiver

URL_VARIABLE = "CARD_SANDBOX_URL"

F = TypeVar("F", bound=Callable[..., Any])


def _hookimpl(**options: bool) -> Callable[[F], F]:
    """pytest.hookimpl, typed (pluggy's marker is untyped in the versions Debian ships)."""
    return cast(Callable[[F], F], pytest.hookimpl(**options))


@dataclass
class SandboxServer:
    """The run's sandbox, as the `sandbox_server` fixture gives it."""

    #: Its origin, `http://127.0.0.1:<port>`; the API is under `/v1`.
    url: str
    #: True when the run attached to a sandbox named by CARD_SANDBOX_URL (and started none).
    attached: bool
    #: The process the kit started, when it started one (in the process that started it: the
    #: controller under xdist).
    process: Optional[SandboxProcess] = None

    @property
    def base_url(self) -> str:
        return f"{self.url}/v1"

    @property
    def pid(self) -> Optional[int]:
        return None if self.process is None else self.process.pid


@dataclass
class Kit:
    """What the plugin holds for one pytest run (one config)."""

    #: A random word of this run, in every token: runs sharing a sandbox never share a tenant.
    run_id: str
    #: `main`, or the xdist worker's id (`gw0`).
    worker: str
    given: List[Given]
    webhook_secret: Optional[str]
    webhook_bind: str
    webhook_host: Optional[str]
    start_timeout: float
    server: Optional[SandboxServer] = None
    url_before: Optional[str] = None
    header: Optional[str] = None

    def token_for(self, nodeid: str) -> str:
        """
        The test's token: `pytest-<run>-<hash of worker and test>`. The masked token the sandbox
        prints (its last 4 characters) still tells tests apart.
        """
        digest = hashlib.sha256(f"{self.worker}\0{nodeid}".encode("utf-8")).hexdigest()[:10]
        return f"pytest-{self.run_id}-{digest}"


KIT = pytest.StashKey[Kit]()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("card-sandbox", "card-sandbox (docs/python.md)")
    for option in KIT_OPTIONS:
        help = f"{option.help}; env {option.variable} wins"
        if option.repeatable:
            group.addoption(option.pytest_flag, action="append", default=[], help=help)
            parser.addini(option.ini, help, type="linelist", default=[])
        else:
            group.addoption(option.pytest_flag, choices=option.choices, help=help)
            parser.addini(option.ini, help, default=None)
    receiver = {
        "webhook-bind": "address the webhook_receiver listens on (default 127.0.0.1)",
        "webhook-host": "host the webhook_receiver registers (default: its bind address)",
        "start-timeout": "seconds to wait for the sandbox to answer (default 60)",
    }
    for name, help in receiver.items():
        group.addoption(f"--card-sandbox-{name}", help=help)
        parser.addini("card_sandbox_" + name.replace("-", "_"), help, default=None)


def _setting(config: pytest.Config, name: str) -> Optional[str]:
    """A plugin setting: its flag, else its ini key."""
    flag = config.getoption("card_sandbox_" + name.replace("-", "_"))
    if flag is not None:
        return str(flag)
    ini = config.getini("card_sandbox_" + name.replace("-", "_"))
    return str(ini) if ini else None


def _seconds(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise pytest.UsageError(f"card-sandbox: the start timeout is seconds (got {text!r})")


def _given(config: pytest.Config) -> List[Given]:
    flags: Dict[str, List[str]] = {}
    ini: Dict[str, List[str]] = {}
    for option in KIT_OPTIONS:
        value: Any = config.getoption(option.pytest_flag.lstrip("-").replace("-", "_"))
        flags[option.flag] = (
            list(value) if option.repeatable else ([] if value is None else [value])
        )
        raw: Any = config.getini(option.ini)
        ini[option.flag] = list(raw) if option.repeatable else ([] if not raw else [str(raw)])
    given = resolve(os.environ, flags, ini)
    try:
        check_values(given)
    except ValueError as error:
        raise pytest.UsageError(f"card-sandbox: {error}") from None
    return given


def pytest_configure(config: pytest.Config) -> None:
    workerinput: Optional[Dict[str, Any]] = getattr(config, "workerinput", None)
    given = _given(config)
    secret = os.environ.get("CARD_SANDBOX_WEBHOOK_SECRET") or sandbox_environment(given).get(
        "CARD_SANDBOX_WEBHOOK_SECRET"
    )
    kit = Kit(
        run_id=secrets.token_hex(3),
        worker="main",
        given=given,
        webhook_secret=secret,
        webhook_bind=_setting(config, "webhook-bind") or "127.0.0.1",
        webhook_host=_setting(config, "webhook-host"),
        start_timeout=_seconds(_setting(config, "start-timeout") or "60"),
    )
    if workerinput is not None and "card_sandbox_url" in workerinput:
        # an xdist worker: the controller's sandbox
        kit.run_id = workerinput["card_sandbox_run"]
        kit.worker = workerinput["workerid"]
        kit.server = SandboxServer(
            workerinput["card_sandbox_url"], workerinput["card_sandbox_attached"]
        )
    elif os.environ.get(URL_VARIABLE):
        url = os.environ[URL_VARIABLE].rstrip("/")
        problem = attach_conflicts(url, given, os.environ)
        if problem is not None:
            raise pytest.UsageError(f"card-sandbox: {problem}")
        kit.server = SandboxServer(sandbox_origin(url), attached=True)
        kit.header = (
            f"card-sandbox: attached to the sandbox at {kit.server.url} (CARD_SANDBOX_URL); "
            "starting none, each test's tenant on a manual clock"
        )
    config.stash[KIT] = kit


@_hookimpl(tryfirst=True)
def pytest_sessionstart(session: pytest.Session) -> None:
    """Starts the run's sandbox (before collection, and before xdist starts its workers)."""
    config = session.config
    kit = config.stash.get(KIT, None)
    if kit is None or kit.worker != "main":
        return
    if kit.server is not None:
        health = f"{kit.server.url}/__sandbox/health"
        if not answers(health):
            raise pytest.UsageError(
                f"card-sandbox: CARD_SANDBOX_URL={kit.server.url} names no running sandbox "
                f"(GET /__sandbox/health does not answer 200): start it, or unset "
                "CARD_SANDBOX_URL to let the kit start its own."
            )
        return
    base = config.inipath.parent if config.inipath else config.rootpath
    environment = {**os.environ, **sandbox_environment(kit.given)}
    try:
        process = start_sandbox(
            config.rootpath,
            sandbox_flags(kit.given, base),
            environment,
            timeout=kit.start_timeout,
        )
    except (SandboxNotFound, SandboxStartError) as error:
        raise pytest.UsageError(str(error)) from None
    kit.server = SandboxServer(process.url, attached=False, process=process)
    kit.url_before = os.environ.get(URL_VARIABLE)
    os.environ[URL_VARIABLE] = process.url
    kit.header = (
        f"card-sandbox: started card-sandbox {process.version} at {process.url} "
        f"({process.candidate.source}: {' '.join(process.argv)}), "
        f"{process.banner.get('clock')} clocks; stopped at the end of the run"
    )


@_hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:
    """xdist, in the controller: each worker gets the run's sandbox."""
    kit = node.config.stash.get(KIT, None)
    if kit is None or kit.server is None:
        return
    node.workerinput["card_sandbox_url"] = kit.server.url
    node.workerinput["card_sandbox_attached"] = kit.server.attached
    node.workerinput["card_sandbox_run"] = kit.run_id


def pytest_report_header(config: pytest.Config) -> Optional[str]:
    kit = config.stash.get(KIT, None)
    return None if kit is None else kit.header


def pytest_unconfigure(config: pytest.Config) -> None:
    kit = config.stash.get(KIT, None)
    if kit is None or kit.server is None or kit.server.process is None:
        return
    kit.server.process.stop()
    if kit.url_before is None:
        os.environ.pop(URL_VARIABLE, None)
    else:
        os.environ[URL_VARIABLE] = kit.url_before


def _kit(config: pytest.Config) -> Kit:
    kit = config.stash.get(KIT, None)
    if kit is None or kit.server is None:
        raise pytest.UsageError("card-sandbox: the run has no sandbox (is the plugin disabled?)")
    return kit


@pytest.fixture(scope="session")
def sandbox_server(pytestconfig: pytest.Config) -> SandboxServer:
    """The run's sandbox: `url`, `base_url`, `attached`, and `pid` when this process started it."""
    server = _kit(pytestconfig).server
    assert server is not None
    return server


@pytest.fixture
def sandbox(request: pytest.FixtureRequest, sandbox_server: SandboxServer) -> SandboxClient:
    """
    A client bound to a tenant of this test's own (its token: `sandbox.token`), reset when the
    test starts; on an attached sandbox its clock is then set to manual.
    """
    kit = _kit(request.config)
    client = SandboxClient(sandbox_server.url, kit.token_for(request.node.nodeid))
    client.reset(clock="manual" if sandbox_server.attached else None)
    return client


@pytest.fixture
def sandbox_env(sandbox: SandboxClient, monkeypatch: pytest.MonkeyPatch) -> Dict[str, str]:
    """
    The code under test's settings for this test's tenant, set in `os.environ` (monkeypatch
    takes them back after): `ALAL_BASE_URL` (the /v1 base with its trailing slash, as alal-python
    needs it), `ALAL_API_KEY` (the token), `CARD_SANDBOX_URL` and `CARD_SANDBOX_TOKEN`.
    """
    settings = sandbox_settings(sandbox)
    for name, value in settings.items():
        monkeypatch.setenv(name, value)
    return settings


@pytest.fixture
def webhook_receiver(
    sandbox: SandboxClient, pytestconfig: pytest.Config
) -> Iterator[WebhookReceiver]:
    """
    A receiver registered as this test's tenant's webhook URL (put back after), checking every
    delivery's signature: `webhook_receiver.wait_for("card_creation.successful")`.
    """
    kit = _kit(pytestconfig)
    receiver = WebhookReceiver(
        sandbox, secret=kit.webhook_secret, bind=kit.webhook_bind, host=kit.webhook_host
    )
    try:
        yield receiver
    finally:
        receiver.close()


__all__ = ["SandboxServer", "sandbox", "sandbox_env", "sandbox_server", "webhook_receiver"]
