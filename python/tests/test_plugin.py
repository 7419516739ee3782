"""
The plugin in inner pytest runs (`pytester`, each a real pytest process loading the plugin
through its entry point, starting a real sandbox from CARD_SANDBOX_COMMAND): one sandbox for the
run and no process left after it, however it ends; attaching through CARD_SANDBOX_URL; the error
when nothing can start; a tenant per test, also under xdist; the options and who wins.
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any, Dict, Iterator, List

import pytest

from card_sandbox import SandboxClient, start_sandbox
from card_sandbox.launcher import SandboxProcess, answers
from card_sandbox.plugin import SandboxServer
from conftest import eventually, process_gone

#: The inner runs' conftest: each test notes the run's sandbox and its tenant in $RECORD.
RECORDING_CONFTEST = """
import json, os, time
import pytest

@pytest.fixture(autouse=True)
def _record(request, sandbox_server):
    note = {
        "test": request.node.name,
        "url": sandbox_server.url,
        "attached": sandbox_server.attached,
        "pid": sandbox_server.pid,
        "worker": os.environ.get("PYTEST_XDIST_WORKER", "main"),
        "env_url": os.environ.get("CARD_SANDBOX_URL"),
    }
    if sandbox_server.process is not None:
        note["argv"] = sandbox_server.process.argv
        note["banner"] = sandbox_server.process.banner
    if "sandbox" in request.fixturenames:
        client = request.getfixturevalue("sandbox")
        note["token"] = client.token
        note["clock"] = client.clock()["mode"]
    with open(os.environ["RECORD"], "a") as f:
        f.write(json.dumps(note) + "\\n")

@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config):
    # after the plugin's own: how the sandbox it started ended, noted in $STOPPED
    from card_sandbox.plugin import KIT
    kit = config.stash.get(KIT, None)
    process = kit and kit.server and kit.server.process
    if process is not None:
        with open(os.environ["STOPPED"], "w") as f:
            json.dump({"returncode": process.process.returncode, "last": process.last_lines()}, f)

def hold():
    \"\"\"Until the outer test creates $RELEASE (bounded): a run to interrupt mid-test.\"\"\"
    deadline = time.monotonic() + 60
    while not os.path.exists(os.environ["RELEASE"]) and time.monotonic() < deadline:
        time.sleep(0.05)
"""


@pytest.fixture
def inner(
    pytester: pytest.Pytester, inner_env: Dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> pytest.Pytester:
    """A pytester project with the recording conftest, $RECORD and $RELEASE set."""
    pytester.makeconftest(RECORDING_CONFTEST)
    monkeypatch.setenv("RECORD", str(pytester.path / "record.jsonl"))
    monkeypatch.setenv("RELEASE", str(pytester.path / "release"))
    monkeypatch.setenv("STOPPED", str(pytester.path / "stopped.json"))
    return pytester


def records(pytester: pytest.Pytester) -> List[Dict[str, Any]]:
    path = pytester.path / "record.jsonl"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines()]


def stopped_by_the_kit(pytester: pytest.Pytester) -> bool:
    """The run's sandbox had exited cleanly on the kit's SIGTERM when pytest unconfigured."""
    stopped = json.loads((pytester.path / "stopped.json").read_text())
    return stopped["returncode"] == 0 and "SIGTERM received" in stopped["last"]


def gone(note: Dict[str, Any]) -> bool:
    """The recorded sandbox has exited and its port no longer answers."""
    return process_gone(note["pid"]) and not answers(f"{note['url']}/__sandbox/health")


def run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest_subprocess(*args, "-p", "no:cacheprovider", timeout=120)


# ---- one sandbox for the run, and nothing left after it ----


def test_starts_one_sandbox_for_the_run_and_stops_it_after_even_a_failure(
    inner: pytest.Pytester,
) -> None:
    inner.makepyfile(
        """
        import os
        def test_one(sandbox):
            assert sandbox.clock()["mode"] == "manual"
        def test_two(sandbox):
            assert os.environ["CARD_SANDBOX_URL"] == sandbox.url
        def test_three_fails(sandbox):
            assert sandbox.v1("GET", "/cards")["data"] == ["a card"]
        """
    )
    result = run(inner, "-v")
    result.assert_outcomes(passed=2, failed=1)
    one, two, three = records(inner)
    assert one["url"] == two["url"] == three["url"] and not one["attached"]
    assert one["pid"] == two["pid"] == three["pid"]
    assert one["env_url"] == one["url"]
    # the kit's line in the header, before the tests run
    lines = result.stdout.lines
    header = next(i for i, line in enumerate(lines) if line.startswith("card-sandbox: started"))
    assert header < next(i for i, line in enumerate(lines) if "collected" in line)
    assert one["url"] in lines[header]
    assert "--port 0 --clock manual --log json --exit-with-parent on" in lines[header]
    # stopped after the last test, which failed
    assert stopped_by_the_kit(inner)
    assert eventually(lambda: gone(one))


def interruptible() -> None:
    """SIGINT as a terminal's Ctrl-C finds it: a run started in the background (CI's, say) inherits
    it ignored, and Python then raises no KeyboardInterrupt."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def start_held_run(inner: pytest.Pytester) -> "subprocess.Popen[bytes]":
    """An inner run whose one test holds until released; the outer test interrupts it."""
    inner.makepyfile(
        """
        from conftest import hold
        def test_held(sandbox):
            hold()
        """
    )
    process: "subprocess.Popen[bytes]" = inner.popen(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
        preexec_fn=interruptible,
    )
    return process


def finish(process: "subprocess.Popen[bytes]") -> str:
    out, _ = process.communicate(timeout=60)
    return out.decode("utf-8", errors="replace")


def test_stops_it_on_ctrl_c(inner: pytest.Pytester) -> None:
    process = start_held_run(inner)
    try:
        (note,) = eventually(lambda: records(inner), timeout=60)
        assert answers(f"{note['url']}/__sandbox/health")
        process.send_signal(signal.SIGINT)
        output = finish(process)
    finally:
        (inner.path / "release").touch()
        process.kill()
    assert "KeyboardInterrupt" in output
    assert stopped_by_the_kit(inner)
    assert eventually(lambda: gone(note))


def test_the_sandbox_exits_by_itself_when_pytest_is_killed(inner: pytest.Pytester) -> None:
    process = start_held_run(inner)
    try:
        (note,) = eventually(lambda: records(inner), timeout=60)
        assert answers(f"{note['url']}/__sandbox/health")
        process.send_signal(signal.SIGKILL)
        process.wait(30)
    finally:
        (inner.path / "release").touch()
        process.kill()
    # nothing ran the plugin's stop: the sandbox saw its stdin pipe close (--exit-with-parent on)
    assert eventually(lambda: gone(note), timeout=20)


# ---- attaching to a running sandbox ----


@pytest.fixture
def real_clock_sandbox(
    inner_env: Dict[str, Any], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> Iterator[SandboxProcess]:
    """
    A sandbox started apart, as a CI service would be: real clocks (its variable set, so the
    launcher passes no --clock of its own).
    """
    env = {**os.environ, "CARD_SANDBOX_CLOCK": "real"}
    process = start_sandbox(tmp_path, env=env)
    assert "--clock" not in process.argv and process.banner["clock"] == "real"
    yield process
    process.stop()


def never_started_command(path: Path) -> str:
    """A CARD_SANDBOX_COMMAND that notes it was run (and starts nothing)."""
    script = path / "must-not-run.py"
    script.write_text(f"open({str(path / 'was-run')!r}, 'w').close()\nraise SystemExit(1)\n")
    return f"{sys.executable} {script}"


def test_attaches_to_the_sandbox_named_by_card_sandbox_url_and_starts_none(
    inner: pytest.Pytester, real_clock_sandbox: SandboxProcess, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CARD_SANDBOX_URL", f"{real_clock_sandbox.url}/")
    monkeypatch.setenv("CARD_SANDBOX_COMMAND", never_started_command(inner.path))
    inner.makepyfile(
        """
        from card_sandbox import SandboxClient
        def test_attached(sandbox):
            # the server's own default for a new tenant is a real clock
            assert SandboxClient(sandbox.url, sandbox.token + "-other").clock()["mode"] == "real"
        """
    )
    result = run(inner)
    result.assert_outcomes(passed=1)
    (note,) = records(inner)
    assert note["attached"] and note["url"] == real_clock_sandbox.url and note["pid"] is None
    # the test's own tenant: its clock set to manual
    assert note["clock"] == "manual"
    assert not (inner.path / "was-run").exists()
    result.stdout.fnmatch_lines(
        [f"card-sandbox: attached to the sandbox at {real_clock_sandbox.url} (CARD_SANDBOX_URL)*"]
    )
    # the running sandbox is not the kit's to stop
    assert answers(f"{real_clock_sandbox.url}/__sandbox/health")


def test_refuses_server_options_given_with_card_sandbox_url(
    inner: pytest.Pytester, sandbox_server: SandboxServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CARD_SANDBOX_URL", sandbox_server.url)
    monkeypatch.setenv("CARD_SANDBOX_COMMAND", never_started_command(inner.path))
    monkeypatch.setenv("CARD_SANDBOX_SDK_COMPAT", "on")
    monkeypatch.setenv("CARD_SANDBOX_QUIRKS", "off")
    inner.makeini("[pytest]\ncard_sandbox_scenarios = a.yaml\n")
    inner.makepyfile("def test_never(sandbox): pass")
    result = run(inner, "--card-sandbox-seed", "1")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            f"ERROR: card-sandbox: CARD_SANDBOX_URL={sandbox_server.url} names a running sandbox*"
            "--card-sandbox-seed, card_sandbox_scenarios (ini), CARD_SANDBOX_QUIRKS (variable), "
            "CARD_SANDBOX_SDK_COMPAT (variable)*unset CARD_SANDBOX_URL*"
        ]
    )
    assert not (inner.path / "was-run").exists() and records(inner) == []


def test_refuses_a_server_variable_alone_with_card_sandbox_url(
    inner: pytest.Pytester, sandbox_server: SandboxServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CARD_SANDBOX_URL", sandbox_server.url)
    monkeypatch.setenv("CARD_SANDBOX_DB", "/tmp/x.sqlite")
    inner.makepyfile("def test_never(sandbox): pass")
    result = run(inner)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["*cannot apply the server options given: CARD_SANDBOX_DB (variable).*"]
    )


def test_fails_at_once_when_nothing_answers_at_card_sandbox_url(
    inner: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CARD_SANDBOX_URL", "http://127.0.0.1:9")
    monkeypatch.setenv("CARD_SANDBOX_COMMAND", never_started_command(inner.path))
    inner.makepyfile("def test_never(sandbox): pass")
    result = run(inner)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["ERROR: card-sandbox: CARD_SANDBOX_URL=http://127.0.0.1:9 names no running sandbox*"]
    )
    assert not (inner.path / "was-run").exists() and records(inner) == []


# ---- finding the command ----


def test_says_what_it_tried_when_nothing_can_start(
    inner: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("CARD_SANDBOX_COMMAND", raising=False)
    empty = inner.mkdir("empty-bin")
    monkeypatch.setenv("PATH", str(empty))
    inner.makepyfile("def test_never(sandbox): pass")
    result = run(inner)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            "ERROR: card-sandbox: no sandbox could be started. Tried: CARD_SANDBOX_COMMAND (not set); "
            f"node_modules/.bin/card-sandbox in {inner.path} and the folders above it; "
            "npx (not on PATH); card-sandbox on PATH.",
            "Two ways out: install card-sandbox in the project with npm*"
            "point the kit at a sandbox already running: CARD_SANDBOX_URL=*",
        ]
    )


def test_a_command_that_cannot_run_is_named_with_the_ways_out(
    inner: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CARD_SANDBOX_COMMAND", str(inner.path / "no-such-card-sandbox"))
    inner.makepyfile("def test_never(sandbox): pass")
    result = run(inner)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            f"ERROR: card-sandbox: {inner.path / 'no-such-card-sandbox'} (CARD_SANDBOX_COMMAND) "
            "could not run: *No such file*",
            "Two ways out:*",
        ]
    )


def test_finds_node_modules_bin_when_card_sandbox_command_is_unset(
    inner: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    command = os.environ["CARD_SANDBOX_COMMAND"]
    bin_dir = inner.mkdir("node_modules").joinpath(".bin")
    bin_dir.mkdir()
    script = bin_dir / "card-sandbox"
    script.write_text(f'#!/bin/sh\nexec {command} "$@"\n')
    script.chmod(0o755)
    monkeypatch.delenv("CARD_SANDBOX_COMMAND")
    inner.mkpydir("tests").joinpath("test_found.py").write_text("def test_found(sandbox): pass\n")
    result = run(inner, "tests")
    result.assert_outcomes(passed=1)
    (note,) = records(inner)
    assert note["argv"][0] == str(script)
    result.stdout.fnmatch_lines(["card-sandbox: started * (node_modules/.bin: *"])
    assert eventually(lambda: gone(note))


# ---- a tenant per test ----

ISOLATION_TESTS = """
import os, time
import pytest

def meet(name):
    \"\"\"Under xdist, each test waits until the other has made its card (both run at once).\"\"\"
    if not os.environ.get("MEET"):
        return
    open(os.path.join(os.environ["MEET"], name), "w").close()
    deadline = time.monotonic() + 30
    while len(os.listdir(os.environ["MEET"])) < 2 and time.monotonic() < deadline:
        time.sleep(0.05)

@pytest.mark.parametrize("phone", ["+221770000001", "+221770000002"])
def test_sees_only_its_own_card(sandbox, phone):
    user = sandbox.v1("POST", "/card-users/create", {"phone": phone})["userCard"]["reference"]
    sandbox.transition("card-users", user, "passed")
    body = {"card_user_reference": user, "card_brand": "visa", "card_type": "virtual"}
    card = sandbox.v1("POST", "/cards/create", body)["data"]["card"]["reference"]
    meet(phone)
    assert [c["reference"] for c in sandbox.v1("GET", "/cards")["data"]] == [card]
"""


def test_two_tests_cannot_see_each_others_cards(inner: pytest.Pytester) -> None:
    inner.makepyfile(ISOLATION_TESTS)
    run(inner).assert_outcomes(passed=2)
    first, second = records(inner)
    assert first["token"] != second["token"]
    # the masked token (its last 4 characters) still tells them apart
    assert first["token"][-4:] != second["token"][-4:]


def test_a_test_run_again_starts_from_a_reset_tenant(inner: pytest.Pytester) -> None:
    # a rerun, as pytest-rerunfailures makes one: the same node id, so the same token
    inner.makeconftest(
        RECORDING_CONFTEST
        + textwrap.dedent(
            """
            from _pytest.runner import runtestprotocol

            @pytest.hookimpl(tryfirst=True)
            def pytest_runtest_protocol(item, nextitem):
                runtestprotocol(item, nextitem=None, log=True)
                runtestprotocol(item, nextitem=nextitem, log=True)
                return True
            """
        )
    )
    inner.makepyfile(
        """
        def test_makes_one_card_user(sandbox):
            sandbox.v1("POST", "/card-users/create", {"phone": "+221770000001"})
            # the card-user list: Laravel's paginator in a one-element list
            assert len(sandbox.v1("GET", "/card-users")["data"][0]["data"]) == 1
        """
    )
    run(inner).assert_outcomes(passed=2)
    first, again = records(inner)
    assert first["token"] == again["token"]


def test_under_xdist_one_sandbox_serves_the_workers_a_tenant_each(
    inner: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEET", str(inner.mkdir("meet")))
    inner.makepyfile(ISOLATION_TESTS)
    result = run(inner, "-n", "2")
    result.assert_outcomes(passed=2)
    first, second = records(inner)
    assert {first["worker"], second["worker"]} == {"gw0", "gw1"}
    # the controller's sandbox, handed over: not one the workers found in CARD_SANDBOX_URL
    assert first["url"] == second["url"] == first["env_url"]
    assert not first["attached"] and not second["attached"]
    assert first["token"][-4:] != second["token"][-4:]
    # started once, by the controller, which stopped it
    assert len([l for l in result.stdout.lines if l.startswith("card-sandbox: started")]) == 1
    assert eventually(lambda: not answers(f"{first['url']}/__sandbox/health"))


def test_the_token_names_the_run_and_a_hash_of_worker_and_test(sandbox: SandboxClient) -> None:
    import re

    assert re.fullmatch(r"pytest-[0-9a-f]{6}-[0-9a-f]{10}", sandbox.token)


# ---- options ----


def test_a_variable_wins_over_the_flag_and_the_flag_over_the_ini(
    inner: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    inner.makeini("[pytest]\ncard_sandbox_seed = 5\ncard_sandbox_sdk_compat = off\n")
    inner.makepyfile("def test_options(sandbox_server): pass")
    monkeypatch.setenv("CARD_SANDBOX_SEED", "9")
    monkeypatch.setenv("CARD_SANDBOX_QUIRKS", "off")
    result = run(
        inner,
        "--card-sandbox-seed",
        "7",
        "--card-sandbox-quirks",
        "on",
        "--card-sandbox-sdk-compat",
        "on",
    )
    result.assert_outcomes(passed=1)
    (note,) = records(inner)
    argv, banner = note["argv"], note["banner"]
    # a variable's option: no flag, the sandbox reads the variable
    assert "--seed" not in argv and banner["seed"] == 9
    assert "--quirks" not in argv and banner["quirks"] is False
    # no variable: the flag, over the ini
    assert argv[argv.index("--sdk-compat") + 1] == "on" and banner["sdk_compat"] is True


def test_ini_options_scenario_files_from_its_folder_and_the_webhook_secret(
    inner: pytest.Pytester,
) -> None:
    inner.path.joinpath("teapot.yaml").write_text(
        textwrap.dedent(
            """
            name: teapot
            rules:
              - match: { method: GET, path: /v1/cards }
                respond: { status: 418 }
            """
        )
    )
    inner.makeini(
        "[pytest]\ncard_sandbox_scenarios =\n    teapot.yaml\n"
        "card_sandbox_webhook_secret = shared-secret\n"
    )
    sub = inner.mkdir("sub")
    sub.joinpath("test_ini.py").write_text(
        textwrap.dedent(
            """
            import pytest
            from card_sandbox import SandboxClientError, verify_signature

            def test_the_scenario_file_is_in_force(sandbox):
                with pytest.raises(SandboxClientError) as error:
                    sandbox.v1("GET", "/cards")
                assert error.value.status == 418
                assert [s["name"] for s in sandbox.scenarios()] == ["teapot"]

            def test_the_secret_signs_and_the_receiver_checks_with_it(
                sandbox, webhook_receiver, sandbox_server
            ):
                user = sandbox.v1("POST", "/card-users/create", {"phone": "+221770000001"})
                sandbox.transition("card-users", user["userCard"]["reference"], "passed")
                d = webhook_receiver.wait_for("card_user_verification.successful")
                assert verify_signature(d.raw_body, d.headers["x-alal-signature"], "shared-secret")
                assert "shared-secret" not in " ".join(sandbox_server.process.argv)
            """
        )
    )
    # run from the sub-folder: the scenario file is read from the ini's folder
    result = run(inner, "--rootdir", str(inner.path), str(sub))
    result.assert_outcomes(passed=2)


def test_refuses_a_value_outside_an_options_choices(inner: pytest.Pytester) -> None:
    inner.makeini("[pytest]\ncard_sandbox_quirks = maybe\n")
    inner.makepyfile("def test_never(sandbox): pass")
    result = run(inner)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["ERROR: card-sandbox: card_sandbox_quirks (ini) must be on or off (got 'maybe')"]
    )


def test_is_switched_off_with_p_no_card_sandbox(inner: pytest.Pytester) -> None:
    inner.makeconftest("")
    inner.makepyfile("def test_needs_it(sandbox): pass")
    result = run(inner, "-p", "no:card_sandbox")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*fixture 'sandbox' not found*"])
    assert not any(line.startswith("card-sandbox:") for line in result.stdout.lines)


def test_is_loaded_through_its_entry_point(pytestconfig: pytest.Config) -> None:
    from importlib.metadata import entry_points

    points = [p for p in entry_points(group="pytest11") if p.name == "card_sandbox"]
    assert [p.value for p in points] == ["card_sandbox.plugin"]
    loaded = {
        dist.project_name: plugin
        for plugin, dist in pytestconfig.pluginmanager.list_plugin_distinfo()
    }
    assert loaded["card-sandbox"].__name__ == "card_sandbox.plugin"


def test_sandbox_env_gives_the_code_under_test_its_settings(
    sandbox: SandboxClient, sandbox_env: Dict[str, str]
) -> None:
    assert sandbox_env == {
        "ALAL_BASE_URL": f"{sandbox.url}/v1/",
        "ALAL_API_KEY": sandbox.token,
        "CARD_SANDBOX_URL": sandbox.url,
        "CARD_SANDBOX_TOKEN": sandbox.token,
    }
    assert {name: os.environ[name] for name in sandbox_env} == sandbox_env
