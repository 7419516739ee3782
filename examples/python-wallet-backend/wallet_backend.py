"""
A client team's backend, as small as it gets, standard library only: it registers card users,
issues and funds their cards and sends money from a card to a mobile wallet through the
card-issuing API (its `/v1` base: the real service in production, card-sandbox in tests), and
receives the API's webhooks, checking `x-alal-signature` (the hex HMAC-SHA512 of the raw body,
keyed with the API key) before it records what they say. Nothing here knows about the sandbox.

Its settings are alal-python's variables: `ALAL_BASE_URL` (the `/v1` base **with** a trailing
slash: paths are appended without a leading one, as the SDK appends them) and `ALAL_API_KEY`.
"""
from __future__ import annotations

import hashlib
import hmac
import json
import os
import threading
import urllib.error
import urllib.request
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Dict, Mapping, Optional


@dataclass(frozen=True)
class Config:
    #: The API's `/v1` base with its trailing slash: `https://api.example/v1/`.
    base_url: str
    #: The business's API key: the bearer token, and what signs the webhooks.
    api_key: str

    @classmethod
    def from_env(cls, env: Mapping[str, str] = os.environ) -> Config:
        base_url, api_key = env.get("ALAL_BASE_URL"), env.get("ALAL_API_KEY")
        if not base_url or not api_key:
            raise RuntimeError(
                "set ALAL_BASE_URL (the /v1 base, with its trailing slash) and ALAL_API_KEY"
            )
        return cls(base_url, api_key)


class ApiError(Exception):
    """An error answer of the API."""

    def __init__(self, status: int, body: Any) -> None:
        super().__init__(f"the card API answered {status}: {body}")
        self.status = status
        self.body = body


def signed_by(raw_body: bytes, signature: Optional[str], secret: str) -> bool:
    """Whether `signature` is the hex HMAC-SHA512 of the raw body, compared in constant time."""
    expected = hmac.new(secret.encode("utf-8"), raw_body, hashlib.sha512).hexdigest()
    return hmac.compare_digest(expected, (signature or "").lower())


class WalletBackend:
    def __init__(self, config: Config) -> None:
        self.config = config
        #: What the backend knows of each card user (`pending` until the webhook says) and card.
        self.users: Dict[str, str] = {}
        self.cards: Dict[str, Dict[str, Any]] = {}

    # ---- calling the API ----

    def _call(self, method: str, path: str, body: Any = None) -> Any:
        request = urllib.request.Request(
            self.config.base_url + path,
            data=None if body is None else json.dumps(body).encode("utf-8"),
            method=method,
            headers={
                "Authorization": f"Bearer {self.config.api_key}",
                "Accept": "application/json",
                "Content-Type": "application/json",
            },
        )
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                return json.loads(response.read())
        except urllib.error.HTTPError as error:
            with error:
                raise ApiError(error.code, json.loads(error.read() or b"null")) from None

    def register_card_user(self, identity: Mapping[str, str]) -> str:
        """Registers a card user with their whole identity; pending until verified."""
        answer = self._call("POST", "card-users/create", dict(identity))
        reference: str = answer["data"]["userCard"]["reference"]
        self.users[reference] = "pending"
        return reference

    def issue_card(self, card_user: str) -> Dict[str, Any]:
        """Orders a virtual visa card; `issuing` until the API issues it."""
        body = {"card_user_reference": card_user, "card_brand": "visa", "card_type": "virtual"}
        card: Dict[str, Any] = self._call("POST", "cards/create", body)["data"]["card"]
        self.cards[card["reference"]] = {"status": card["status"]}
        return card

    def card_balance(self, card: str) -> int:
        return int(self._call("GET", f"cards/{card}")["data"]["card"]["balance"])

    def fund_card(self, card: str, amount: int) -> Dict[str, Any]:
        """Loads the card from the business's float (a `recharge`): pending, then settled."""
        body = {"action": "recharge", "amount": amount, "card_reference": card}
        return self._transaction(self._call("POST", "transactions/create", body))

    def send_to_wallet(self, card: str, amount: int, phone: str, network: str) -> Dict[str, Any]:
        """Sends money from the card to a mobile wallet: pending until it settles."""
        body = {"amount": amount, "card_reference": card, "phone": phone, "network": network}
        return self._transaction(self._call("POST", "transactions/create/card-to-wallet", body))

    def transaction(self, slug: str) -> Dict[str, Any]:
        return self._transaction(self._call("GET", f"transactions/{slug}"))

    @staticmethod
    def _transaction(answer: Dict[str, Any]) -> Dict[str, Any]:
        # a create answers it under `data`, a show beside `message` (the API's examples)
        found: Dict[str, Any] = (answer.get("data") or {}).get("transaction") or answer[
            "transaction"
        ]
        return found

    # ---- receiving its webhooks ----

    def handle_webhook(self, raw_body: bytes, signature: Optional[str]) -> int:
        """
        `POST /webhooks/alal`, whatever the web framework: the status to answer. 401 unless
        signed with the API key; then what the event says is recorded.
        """
        if not signed_by(raw_body, signature, self.config.api_key):
            return 401
        payload = json.loads(raw_body)
        event, data = payload["event"], payload["data"]
        if event.startswith("card_user_verification."):
            self.users[data["reference"]] = data["status"]
        elif event.startswith("card_creation."):
            status = "issued" if event.endswith(".successful") else "failed"
            self.cards[data["reference"]] = {"status": status}
        return 200

    def serve_webhooks(self, host: str = "127.0.0.1", port: int = 0) -> WebhookServer:
        """Serves `POST /webhooks/alal` in a thread; port 0 picks a free one."""
        return WebhookServer(self, host, port)


class WebhookServer:
    """The backend's webhook endpoint on a port of its own (http.server)."""

    def __init__(self, backend: WalletBackend, host: str, port: int) -> None:
        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                if self.path != "/webhooks/alal":
                    self.send_response(404)
                    self.end_headers()
                    return
                raw = self.rfile.read(int(self.headers.get("content-length") or 0))
                status = backend.handle_webhook(raw, self.headers.get("x-alal-signature"))
                self.send_response(status)
                self.send_header("content-length", "0")
                self.end_headers()

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self._server = ThreadingHTTPServer((host, port), Handler)
        self.webhook_url = f"http://{host}:{self._server.server_address[1]}/webhooks/alal"
        threading.Thread(target=self._server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()
