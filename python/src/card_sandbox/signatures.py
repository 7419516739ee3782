"""
The webhook signature (docs/webhooks.md): `x-alal-signature` is the hex HMAC-SHA512 of the
body's exact bytes, keyed with the tenant's secret (its bearer token unless set otherwise). The
same rule as the Node helpers `verifySignature` and `signPayload` of `card-sandbox/testing`.
"""
from __future__ import annotations

import hashlib
import hmac
import json
import re
from typing import Any, Dict, NamedTuple, Optional, Union

SIGNATURE_HEADER = "x-alal-signature"

_HEX_SHA512 = re.compile(r"[0-9a-fA-F]{128}")


def sign(body: Union[str, bytes], secret: str) -> str:
    """The hex HMAC-SHA512 of `body` (text is taken as UTF-8), keyed with `secret`."""
    data = body.encode("utf-8") if isinstance(body, str) else body
    return hmac.new(secret.encode("utf-8"), data, hashlib.sha512).hexdigest()


def verify_signature(raw_body: Union[str, bytes], header: Optional[str], secret: str) -> bool:
    """
    Whether `header` (the `x-alal-signature` value) signs `raw_body` with `secret`, compared in
    constant time. Give the body's exact bytes as received (Flask: `request.get_data()`,
    Django: `request.body`): a parsed and re-serialized body may no longer match.
    """
    if not isinstance(header, str) or not _HEX_SHA512.fullmatch(header):
        return False
    return hmac.compare_digest(sign(raw_body, secret), header.lower())


class SignedPayload(NamedTuple):
    """A body to post and the headers that sign it."""

    body: str
    signature: str
    headers: Dict[str, str]


def sign_payload(payload: Union[str, bytes, Any], secret: str) -> SignedPayload:
    """
    A payload signed as the sandbox signs a webhook, to post to your own handler in its tests.
    A dict is serialized as the sandbox serializes its events (compact JSON, keys in order).

        signed = sign_payload({"event": "card_creation.successful", "data": data}, secret)
        client.post("/webhooks/alal", data=signed.body, headers=signed.headers)
    """
    if isinstance(payload, bytes):
        body = payload.decode("utf-8")
    elif isinstance(payload, str):
        body = payload
    else:
        body = compact_json(payload)
    signature = sign(body, secret)
    headers = {"content-type": "application/json", SIGNATURE_HEADER: signature}
    return SignedPayload(body, signature, headers)


def compact_json(value: Any) -> str:
    """JSON as `JSON.stringify` writes it: no spaces, non-ASCII kept as it is."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)
