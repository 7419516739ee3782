"""
The `webhook_receiver` fixture and WebhookReceiver against the run's sandbox: a signed delivery
waited for, a timeout naming what did arrive, a refused delivery retried once the clock moves,
and the tenant's endpoint put back after.
"""
from __future__ import annotations

import re
from typing import List

import pytest

from card_sandbox import Delivery, SandboxClient, WebhookReceiver, WebhookTimeout
from conftest import IDENTITY, eventually

VISA = {"card_brand": "visa", "card_type": "virtual"}


def test_wait_for_returns_a_signed_delivery(
    sandbox: SandboxClient, webhook_receiver: WebhookReceiver
) -> None:
    assert sandbox.webhook()["url"] == webhook_receiver.url
    user = sandbox.v1("POST", "/card-users/create", IDENTITY)["data"]["userCard"]["reference"]
    sandbox.run_until_idle()
    delivery = webhook_receiver.wait_for("card_user_verification.successful")
    assert delivery.verified and delivery.attempt == 1
    assert delivery.data["reference"] == user and delivery.data["status"] == "passed"
    assert delivery.body == {"event": "card_user_verification.successful", "data": delivery.data}
    event = sandbox.webhooks()["data"][0]
    assert delivery.headers["x-alal-event-id"] == event["id"]


def test_wait_for_picks_the_delivery_where_accepts(
    sandbox: SandboxClient, webhook_receiver: WebhookReceiver
) -> None:
    users = [
        sandbox.v1("POST", "/card-users/create", {**IDENTITY, "phone": phone})["data"]["userCard"]
        for phone in ("+221770000001", "+221770000002")
    ]
    sandbox.run_until_idle()
    first, second = (user["reference"] for user in users)
    for reference in (second, first):
        delivery = webhook_receiver.wait_for(
            "card_user_verification.successful", where=lambda d: d.data["reference"] == reference
        )
        assert delivery.data["reference"] == reference
    # past deliveries count: once both are in, each is found at once
    for reference in (first, second):
        again = webhook_receiver.wait_for(
            "card_user_verification.successful",
            where=lambda d: d.data["reference"] == reference,
            timeout=0,
        )
        assert again.data["reference"] == reference


def test_wait_for_fails_naming_what_did_arrive(sandbox: SandboxClient) -> None:
    with WebhookReceiver(sandbox, secret="what-my-backend-expects") as receiver:
        # the sandbox signs with another secret than the receiver checks
        sandbox.set_webhook(receiver.url, "something-else")
        sandbox.v1("POST", "/card-users/create", IDENTITY)
        sandbox.run_until_idle()
        eventually(lambda: receiver.deliveries)
        with pytest.raises(WebhookTimeout) as raised:
            receiver.wait_for("card_user_verification.successful", timeout=0.3)
        assert str(raised.value) == (
            "no verified card_user_verification.successful delivery within 0.3 s "
            "(received: card_user_verification.successful (bad signature))"
        )
        with pytest.raises(AssertionError, match=r"\(received: card_user_verification"):
            receiver.wait_for("card_creation.successful", timeout=0.1)
        # answered 401: the sandbox keeps it for a retry
        event = eventually(lambda: [e for e in sandbox.webhooks()["data"] if e["attempts"]])[0]
        assert event["status"] == "pending" and event["attempts"][0]["status_code"] == 401


def test_wait_for_names_nothing_when_nothing_came(webhook_receiver: WebhookReceiver) -> None:
    with pytest.raises(WebhookTimeout, match=r"within 0.1 s \(received: nothing\)$"):
        webhook_receiver.wait_for("card_creation.successful", timeout=0.1)


def test_a_refused_delivery_is_retried_once_the_clock_moves(
    sandbox: SandboxClient, webhook_receiver: WebhookReceiver
) -> None:
    answers: List[int] = [503]
    webhook_receiver.respond = lambda delivery: answers.pop(0) if answers else 200
    sandbox.v1("POST", "/card-users/create", IDENTITY)
    sandbox.run_until_idle()
    first = webhook_receiver.wait_for("card_user_verification.successful")
    assert first.attempt == 1
    logged = eventually(
        lambda: [
            e for e in sandbox.webhooks()["data"] if e["attempts"] and e["status"] == "pending"
        ]
    )[0]
    assert logged["attempts"][0]["status_code"] == 503
    # no retry without the clock moving; 10 s of sandbox time later, the first retry
    with pytest.raises(WebhookTimeout):
        webhook_receiver.wait_for(
            "card_user_verification.successful", where=lambda d: d.attempt == 2, timeout=0.3
        )
    sandbox.advance_clock("10s")
    retried = webhook_receiver.wait_for(
        "card_user_verification.successful", where=lambda d: d.attempt == 2
    )
    assert retried.verified and retried.raw_body == first.raw_body
    delivered = eventually(
        lambda: [e for e in sandbox.webhooks()["data"] if e["status"] == "delivered"]
    )[0]
    assert [a["status_code"] for a in delivered["attempts"]] == [503, 200]


def test_close_puts_the_tenants_endpoint_back(sandbox: SandboxClient) -> None:
    sandbox.set_webhook("http://127.0.0.1:9/mine", "my-secret")
    with WebhookReceiver(sandbox) as receiver:
        assert sandbox.webhook()["url"] == receiver.url
        assert sandbox.webhook()["secret_source"] == "tenant"
    after = sandbox.webhook()
    assert (after["url"], after["secret"]) == ("http://127.0.0.1:9/mine", "my-secret")
    with WebhookReceiver(sandbox):
        sandbox.set_webhook(None)
    assert sandbox.webhook()["url"] == "http://127.0.0.1:9/mine"


def test_listens_on_the_bind_address_and_registers_the_host(sandbox: SandboxClient) -> None:
    with WebhookReceiver(sandbox, bind="0.0.0.0", host="localhost", path="/hooks") as receiver:
        assert re.fullmatch(r"http://localhost:\d+/hooks", receiver.url)
        sandbox.v1("POST", "/card-users/create", IDENTITY)
        sandbox.run_until_idle()
        delivery: Delivery = receiver.wait_for("card_user_verification.successful")
        assert delivery.verified
    with WebhookReceiver(sandbox, bind="0.0.0.0") as receiver:
        assert receiver.url.startswith("http://127.0.0.1:")
