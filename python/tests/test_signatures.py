"""
verify_signature and sign_payload: the rule of the Node helpers (`card-sandbox/testing`), checked
against what the Node helper computes for the same bytes and against a real delivery.
"""
from __future__ import annotations

import json

from card_sandbox import (
    SIGNATURE_HEADER,
    SandboxClient,
    WebhookReceiver,
    sign_payload,
    verify_signature,
)
from card_sandbox.signatures import compact_json
from conftest import IDENTITY, eventually, node_json

BODIES = [
    '{"event":"card_creation.successful","data":{"reference":"r"}}',
    '{"event":"card_user_verification.successful","data":{"first_name":"Aïssatou","n":1}}',
    "not json at all \u2028 é",
]


def test_signs_as_the_node_helper_signs_the_same_bytes() -> None:
    node = node_json(
        "import { signPayload } from './dist/testing.js';"
        f"const bodies = {json.dumps(BODIES)};"
        "const objects = bodies.slice(0, 2).map((b) => signPayload(JSON.parse(b), 'k€y'));"
        "console.log(JSON.stringify([...bodies.map((b) => signPayload(b, 'k€y')), ...objects]))"
    )
    python = [sign_payload(body, "k€y") for body in BODIES]
    python += [sign_payload(json.loads(body), "k€y") for body in BODIES[:2]]
    assert [(p.body, p.signature, p.headers) for p in python] == [
        (n["body"], n["signature"], n["headers"]) for n in node
    ]


def test_verifies_what_the_node_helper_signed_and_refuses_the_rest() -> None:
    body = BODIES[0]
    signature = node_json(
        "import { signPayload } from './dist/testing.js';"
        f"console.log(JSON.stringify(signPayload({json.dumps(body)}, 'key').signature))"
    )
    assert verify_signature(body, signature, "key")
    assert verify_signature(body.encode("utf-8"), signature.upper(), "key")
    assert not verify_signature(body.replace('"r"', '"s"'), signature, "key")
    assert not verify_signature(body, signature, "other")
    for header in (None, "", signature[2:], signature[1:] + "g", f" {signature}"):
        assert not verify_signature(body, header, "key")


def test_a_real_delivery_verifies_with_the_tenants_token(sandbox: SandboxClient) -> None:
    # a receiver checking another secret, the sandbox signing with the default (the token):
    # the test checks the bytes itself
    with WebhookReceiver(sandbox, secret="not-the-token") as receiver:
        sandbox.set_webhook(receiver.url)
        sandbox.v1("POST", "/card-users/create", IDENTITY)
        sandbox.run_until_idle()
        delivery = eventually(lambda: receiver.deliveries)[0]
    header = delivery.headers[SIGNATURE_HEADER]
    assert verify_signature(delivery.raw_body, header, sandbox.token)
    assert not verify_signature(delivery.raw_body, header, "not-the-token")
    # the sandbox's body is compact JSON: a handler that re-serializes it still matches
    assert compact_json(json.loads(delivery.raw_body)) == delivery.raw_body
    assert sign_payload(delivery.body, sandbox.token).signature == header
