"""
The wallet backend against card-sandbox, as a client team would test it with the pytest plugin:
one sandbox for the run, a tenant of its own for each test (`sandbox`), the backend configured
from the environment (`sandbox_env`), webhooks received for real (the backend's own endpoint,
or `webhook_receiver`), and the clock moved instead of waited for.
"""
import time

import pytest

from card_sandbox import sign_payload
from wallet_backend import Config, WalletBackend

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


@pytest.fixture
def backend(sandbox_env):
    """The backend as production builds it: from ALAL_BASE_URL and ALAL_API_KEY."""
    return WalletBackend(Config.from_env())


@pytest.fixture
def backend_webhooks(backend, sandbox):
    """The backend's webhook endpoint, the tenant's webhooks pointed at it."""
    server = backend.serve_webhooks()
    sandbox.set_webhook(server.webhook_url)
    yield server
    server.close()


def eventually(check, timeout=5.0):
    """Webhooks arrive just after the call that causes them: poll, with a bound."""
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, "did not happen in time"
        time.sleep(0.02)


def verified_user(backend, sandbox, phone="+221770000001"):
    user = backend.register_card_user({**IDENTITY, "phone": phone})
    sandbox.transition("card-users", user, "passed")  # what the verification widget would do
    return user


def funded_card(backend, sandbox, amount):
    card = backend.issue_card(verified_user(backend, sandbox))["reference"]
    sandbox.run_until_idle()  # issued, whatever the delay
    backend.fund_card(card, amount)
    sandbox.run_until_idle()  # the recharge settles
    return card


def test_a_card_user_is_verified_through_the_signed_webhook(backend, backend_webhooks, sandbox):
    user = backend.register_card_user(IDENTITY)
    assert backend.users[user] == "pending"

    sandbox.run_until_idle()  # verification passes after its delay; the webhook goes out

    eventually(lambda: backend.users[user] == "passed")
    [event] = sandbox.webhooks()["data"]
    assert event["type"] == "card_user_verification.successful"


def test_a_webhook_not_signed_with_the_api_key_is_refused(backend, sandbox):
    payload = {
        "event": "card_user_verification.successful",
        "data": {"reference": "u1", "status": "passed"},
    }
    forged = sign_payload(payload, "not-the-api-key")
    assert backend.handle_webhook(forged.body.encode(), forged.signature) == 401
    assert "u1" not in backend.users

    signed = sign_payload(payload, sandbox.token)  # the API key signs the real ones
    assert backend.handle_webhook(signed.body.encode(), signed.signature) == 200
    assert backend.users["u1"] == "passed"


def test_a_card_is_issued_and_funded(backend, sandbox, webhook_receiver):
    card = backend.issue_card(verified_user(backend, sandbox))
    assert card["status"] == "issuing"

    sandbox.advance_clock("5s")  # card issuing: 5 s of sandbox time

    issued = webhook_receiver.wait_for(
        "card_creation.successful", where=lambda d: d.data["reference"] == card["reference"]
    )
    assert issued.data["card_number"].startswith("4")
    recharge = backend.fund_card(card["reference"], 50_000)
    assert recharge["status"] == "pending"
    sandbox.advance_clock("5s")  # it settles
    assert backend.transaction(recharge["slug"])["status"] == "success"
    assert backend.card_balance(card["reference"]) == 50_000


def test_a_card_to_wallet_transfer_settles_when_the_clock_moves(backend, sandbox):
    card = funded_card(backend, sandbox, 50_000)
    transfer = backend.send_to_wallet(card, 20_000, "+221770000002", "wave-sn")
    assert transfer["status"] == "pending"
    assert backend.card_balance(card) == 30_000  # held

    sandbox.advance_clock("5s")  # transaction settlement

    assert backend.transaction(transfer["slug"])["status"] == "success"
    assert backend.card_balance(card) == 30_000
    sent = sandbox.requests(method="POST", path="/v1/transactions/create/card-to-wallet")["data"]
    assert sent[0]["request"]["body"] == {
        "amount": 20_000,
        "card_reference": card,
        "phone": "+221770000002",
        "network": "wave-sn",
    }


def test_a_large_transfer_fails_as_the_scenario_file_says(backend, sandbox):
    # pytest.ini: card_sandbox_scenarios = scenarios/large-wallet-transfers-fail.yaml
    assert [s["name"] for s in sandbox.scenarios()] == ["large-wallet-transfers-fail"]
    card = funded_card(backend, sandbox, 200_000)
    transfer = backend.send_to_wallet(card, 150_000, "+221770000002", "wave-sn")
    assert transfer["status"] == "pending"

    sandbox.run_until_idle()

    assert backend.transaction(transfer["slug"])["status"] == "failed"
    assert backend.card_balance(card) == 200_000  # the hold went back


def test_a_phone_ending_in_0404_fails_verification(backend, backend_webhooks, sandbox):
    # a magic value: no scenario needed
    user = backend.register_card_user({**IDENTITY, "phone": "+221770000404"})

    sandbox.run_until_idle()

    eventually(lambda: backend.users[user] == "failed")
    [event] = sandbox.webhooks()["data"]
    assert event["type"] == "card_user_verification.failed"
