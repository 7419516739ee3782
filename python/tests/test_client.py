"""
The control-plane client against the run's sandbox (the plugin's `sandbox` fixture: a tenant
of each test's own): every method, its errors, and its method set against the Node client's.
"""
from __future__ import annotations

import inspect
import re
from datetime import datetime, timedelta, timezone
from typing import Any, Dict

import pytest

from card_sandbox import SandboxClient, SandboxClientError
from conftest import IDENTITY, node_json

VISA = {"card_brand": "visa", "card_type": "virtual"}


def verified_user(sandbox: SandboxClient) -> str:
    user: str = sandbox.v1("POST", "/card-users/create", IDENTITY)["data"]["userCard"]["reference"]
    sandbox.run_until_idle()
    return user


def issued_card(sandbox: SandboxClient) -> str:
    user = verified_user(sandbox)
    order = sandbox.v1("POST", "/cards/create", {"card_user_reference": user, **VISA})
    sandbox.run_until_idle()
    reference: str = order["data"]["card"]["reference"]
    return reference


def error_of(call: Any, *args: Any, **kwargs: Any) -> SandboxClientError:
    with pytest.raises(SandboxClientError) as raised:
        call(*args, **kwargs)
    return raised.value


def test_has_the_node_clients_methods_in_pythons_names() -> None:
    node = node_json(
        "import { createSandboxClient } from './dist/client.js';"
        "const c = createSandboxClient({ baseUrl: 'http://127.0.0.1:1', token: 't' });"
        "console.log(JSON.stringify(Object.keys(c).filter((k) => typeof c[k] === 'function')))"
    )
    snake = {re.sub(r"(?<!^)([A-Z])", r"_\1", name).lower() for name in node}
    python = {
        name
        for name, _ in inspect.getmembers(SandboxClient, inspect.isfunction)
        if not name.startswith("_")
    }
    assert sorted(python - snake) == [], "methods the Node client lacks"
    assert sorted(snake - python) == [], "methods of the Node client this one lacks"


def test_health_and_reset(sandbox: SandboxClient) -> None:
    assert sandbox.health() == {"status": "ok"}
    sandbox.v1("POST", "/card-users/create", {"phone": "+221770000001"})
    assert sandbox.reset()["tenant"].startswith("ten_")
    assert sandbox.v1("GET", "/cards")["data"] == []
    assert sandbox.requests(path="/v1/card-users/create")["meta"]["total"] == 0


def test_reset_puts_the_clock_in_the_mode_asked(sandbox: SandboxClient) -> None:
    sandbox.set_clock_mode("real")
    sandbox.reset()
    # this run's sandbox starts tenants on manual clocks
    assert sandbox.clock()["mode"] == "manual"
    sandbox.set_clock_mode("real")
    sandbox.reset(clock="real")
    assert sandbox.clock()["mode"] == "real"
    sandbox.reset(clock="manual")
    assert sandbox.clock()["mode"] == "manual"


def test_clock_advance_by_text_and_timedelta(sandbox: SandboxClient) -> None:
    start = sandbox.clock()
    assert start["mode"] == "manual"
    moved = sandbox.advance_clock("15m")
    assert moved["now_ms"] - start["now_ms"] == 15 * 60_000
    moved = sandbox.advance_clock(timedelta(hours=1, milliseconds=500))
    assert moved["now_ms"] - start["now_ms"] == 75 * 60_000 + 500
    assert sandbox.advance_clock(250)["now_ms"] - start["now_ms"] == 75 * 60_000 + 750
    with pytest.raises(ValueError, match="whole milliseconds"):
        sandbox.advance_clock(timedelta(microseconds=1500))


def test_clock_mode_and_instant(sandbox: SandboxClient) -> None:
    assert sandbox.set_clock_mode("real")["mode"] == "real"
    assert sandbox.set_clock_mode("manual")["mode"] == "manual"
    later = datetime.fromtimestamp(sandbox.clock()["now_ms"] / 1000, timezone.utc)
    later = later.replace(microsecond=0) + timedelta(days=2)
    set_to = sandbox.set_clock(later)
    assert set_to["now"] == later.strftime("%Y-%m-%dT%H:%M:%S.000Z")
    # in another zone, the same instant
    plus_one = later.astimezone(timezone(timedelta(hours=1))) + timedelta(hours=1)
    assert sandbox.set_clock(plus_one)["now_ms"] == set_to["now_ms"] + 3_600_000
    with pytest.raises(ValueError, match="aware datetime"):
        sandbox.set_clock(datetime(2030, 1, 1))
    # back in time: refused
    assert error_of(sandbox.set_clock, "2000-01-01T00:00:00Z").status == 422


def test_run_until_idle_with_and_without_until(sandbox: SandboxClient) -> None:
    user = sandbox.v1("POST", "/card-users/create", IDENTITY)["data"]["userCard"]["reference"]
    now = sandbox.clock()["now_ms"]
    soon = datetime.fromtimestamp((now + 1000) / 1000, timezone.utc)
    early = sandbox.run_until_idle(until=soon)
    assert early["fired"] == [] and early["now_ms"] == now + 1000
    assert [job["reference"] for job in sandbox.jobs()] == [user]
    run = sandbox.run_until_idle()
    assert [(f["resource"], f["reference"], f.get("to")) for f in run["fired"]] == [
        ("card_user", user, "passed")
    ]
    assert sandbox.jobs() == []


def test_delays(sandbox: SandboxClient) -> None:
    defaults = sandbox.delays()
    assert defaults["card_issuing"] == 5000
    assert sandbox.set_delays(card_issuing="500ms")["card_issuing"] == 500
    # each call is the whole set of overrides: a mapping and names together
    both = sandbox.set_delays({"card_user_verification": timedelta(seconds=1)}, card_issuing=700)
    assert (both["card_user_verification"], both["card_issuing"]) == (1000, 700)
    assert sandbox.delays() == both
    assert sandbox.set_delays() == defaults


def test_transition_and_its_409_naming_the_allowed_states(sandbox: SandboxClient) -> None:
    user = sandbox.v1("POST", "/card-users/create", {"phone": "+221770000001"})["userCard"]
    moved = sandbox.transition("card-users", user["reference"], "passed")
    assert moved == {
        "resource": "card_user",
        "reference": user["reference"],
        "from": "pending",
        "to": "passed",
    }
    error = error_of(sandbox.transition, "card-users", user["reference"], "pending")
    assert error.status == 409
    assert error.body["from"] == "passed" and error.body["to"] == "pending"
    assert isinstance(error.body["allowed"], list)
    assert "allowed from passed" in str(error)


def test_funding_a_card_and_the_business(sandbox: SandboxClient) -> None:
    card = issued_card(sandbox)
    funded = sandbox.fund_card(card, 10_000)
    assert funded["balance"] == 10_000
    assert funded["transaction"]["kind"] == "recharge"
    assert sandbox.withdraw_card(card, 4_000)["balance"] == 6_000
    short = error_of(sandbox.withdraw_card, card, 1_000_000)
    assert short.status == 422
    start = sandbox.business()["float_balance"]
    assert sandbox.fund_business(500)["float_balance"] == start + 500


def test_disputes_and_wallet_codes(sandbox: SandboxClient) -> None:
    card = issued_card(sandbox)
    slug = sandbox.fund_card(card, 10_000)["transaction"]["slug"]
    dispute = sandbox.create_dispute(slug, "duplicate")
    assert dispute["transaction_slug"] == slug and dispute["status"] == "open"
    code = sandbox.wallet_code("+2250700000001", "orange-money-ci")
    assert code["phone"] == "+2250700000001" and re.fullmatch(r"\d+", code["code"])


def test_webhook_endpoint_log_and_replay(sandbox: SandboxClient) -> None:
    assert sandbox.webhook()["url_source"] == "none"
    endpoint = sandbox.set_webhook("http://127.0.0.1:9/hooks", "s3cret")
    assert endpoint["url"] == "http://127.0.0.1:9/hooks" and endpoint["secret_source"] == "tenant"
    assert sandbox.set_webhook(None)["url_source"] == "none"
    verified_user(sandbox)
    skipped = sandbox.webhooks(status="skipped")
    assert skipped["meta"]["total"] == 1
    event = skipped["data"][0]
    assert event["type"] == "card_user_verification.successful"
    assert sandbox.webhooks(status="delivered", page=1, per_page=5)["data"] == []
    replayed = sandbox.replay_webhook(event["id"])
    assert replayed["id"] == event["id"]


def test_request_journal(sandbox: SandboxClient) -> None:
    sandbox.v1("POST", "/card-users/create", {"phone": "+221770000001"})
    error_of(sandbox.v1, "GET", "/cards/nope")
    created = sandbox.requests(method="POST", path="/v1/card-users/*")
    assert created["meta"]["total"] == 1
    assert created["data"][0]["request"]["body"] == {"phone": "+221770000001"}
    assert sandbox.requests(status="4xx")["data"][0]["path"] == "/v1/cards/nope"
    assert sandbox.requests(status=404, per_page=1)["meta"]["per_page"] == 1
    sandbox.clear_requests()
    assert sandbox.requests(path="/v1/*")["meta"]["total"] == 0


def test_scenarios_added_listed_and_removed(sandbox: SandboxClient) -> None:
    teapot = {
        "name": "teapot",
        "rules": [{"match": {"method": "GET", "path": "/v1/cards"}, "respond": {"status": 418}}],
    }
    assert [s["name"] for s in sandbox.add_scenario(teapot)] == ["teapot"]
    assert sandbox.scenarios()[0]["rules"] == 1
    assert error_of(sandbox.v1, "GET", "/cards").status == 418
    assert sandbox.remove_scenario("teapot") == []
    assert error_of(sandbox.remove_scenario, "teapot").status == 404


def test_snapshots(sandbox: SandboxClient) -> None:
    card = issued_card(sandbox)
    taken = sandbox.snapshot("issued")
    assert taken["name"] == "issued" and taken["rows"] > 0
    sandbox.fund_card(card, 1_000)
    restored = sandbox.restore("issued")
    assert restored["name"] == "issued" and restored["clock"]["now"] == taken["taken_at"]
    assert sandbox.v1("GET", f"/cards/{card}")["data"]["card"]["balance"] == 0
    assert [s["name"] for s in sandbox.snapshots()] == ["issued"]
    assert sandbox.delete_snapshot("issued") == []
    assert error_of(sandbox.restore, "issued").status == 404


def test_fixtures_by_name_and_inline(sandbox: SandboxClient) -> None:
    names = [f["name"] for f in sandbox.fixtures()]
    assert "verified-user-funded-card" in names
    assert sandbox.apply_fixture("verified-user-funded-card")["name"] == "verified-user-funded-card"
    assert len(sandbox.v1("GET", "/cards")["data"]) == 1
    inline = {
        "name": "one-user",
        "steps": [{"call": "POST /v1/card-users/create", "body": {"phone": "+221770000009"}}],
    }
    assert sandbox.apply_fixture(inline) == {"name": "one-user", "steps": 1}
    assert error_of(sandbox.apply_fixture, "nope").status in (404, 422)


def test_v1_calls_with_and_without_a_body(sandbox: SandboxClient) -> None:
    created = sandbox.v1("post", "card-users/create", {"phone": "+221770000001"})
    reference = created["userCard"]["reference"]
    shown: Dict[str, Any] = sandbox.v1("GET", f"/card-users/{reference}")
    assert shown["data"]["cardUser"]["reference"] == reference


def test_raises_sandbox_client_error_on_404_409_and_422(sandbox: SandboxClient) -> None:
    missing = error_of(sandbox.v1, "GET", "/cards/no-such-card")
    assert missing.status == 404 and missing.body["statusCode"] == 404
    assert (missing.method, missing.path) == ("GET", "/v1/cards/no-such-card")

    user = sandbox.v1("POST", "/card-users/create", {"phone": "+221770000001"})["userCard"]
    sandbox.transition("card-users", user["reference"], "failed")
    conflict = error_of(sandbox.transition, "card-users", user["reference"], "passed")
    assert conflict.status == 409 and conflict.body["from"] == "failed"

    invalid = error_of(sandbox.v1, "POST", "/cards/create", {"card_brand": "amex"})
    assert invalid.status == 422
    assert "card_user_reference" in invalid.body["errors"]
    assert str(invalid).startswith("POST /v1/cards/create answered 422: ")


def test_reads_the_origin_or_the_v1_base_alike(sandbox: SandboxClient) -> None:
    for base in (sandbox.url, f"{sandbox.url}/", f"{sandbox.url}/v1", f"{sandbox.url}/v1/"):
        client = SandboxClient(base, sandbox.token)
        assert (client.url, client.base_url) == (sandbox.url, f"{sandbox.url}/v1")
        assert client.clock()["mode"] == "manual"
    assert sandbox.token[-4:] in repr(sandbox) and sandbox.token not in repr(sandbox)
