"""
A webhook receiver for a test: an HTTP server on a free port in a thread, registered as the
tenant's webhook URL, that checks every delivery's signature (a bad one is answered 401, so the
sandbox retries it) and keeps it. `wait_for(event)` returns the first verified delivery of that
event, past or to come; on a timeout it fails naming what did arrive. The Python form of the
Node helper `webhookReceiver` (`card-sandbox/testing`).

    with WebhookReceiver(sandbox) as receiver:
        ...
        delivery = receiver.wait_for("card_creation.successful",
                                     where=lambda d: d.data["reference"] == card)
"""
from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any, Callable, Dict, List, Optional, Type

from .client import SandboxClient
from .signatures import SIGNATURE_HEADER, verify_signature

#: The largest body the receiver reads (the sandbox's own events are a few KiB).
MAX_BODY_BYTES = 1024 * 1024

_ANY_ADDRESS = {"0.0.0.0", "::", ""}


@dataclass(frozen=True)
class Delivery:
    """One delivery the receiver got."""

    #: The event type (`card_creation.successful`); `""` when the body is not an event's JSON.
    event: str
    #: The event's `data` (None when absent).
    data: Any
    #: The whole parsed body: the payload (None when not JSON).
    body: Any
    #: The body's exact bytes, as text.
    raw_body: str
    #: The request's headers, lowercased (`x-alal-event-id`, `x-alal-delivery-attempt`, …).
    headers: Dict[str, str] = field(repr=False)
    #: Its signature matched the secret: only then is anything in it vouched for.
    verified: bool = False

    @property
    def attempt(self) -> int:
        """Which attempt of the sandbox this was (1, then 2 for the first retry, …)."""
        return int(self.headers.get("x-alal-delivery-attempt", "0") or 0)


class WebhookTimeout(AssertionError):
    """No verified delivery of the event came in time; the message names what did arrive."""


class WebhookReceiver:
    """
    Starts listening and registers itself as the tenant's webhook URL (signed with `secret`,
    default the configured default or the client's token). `respond(delivery)` chooses the status
    answered to a verified delivery (default 200): answer 500 to watch the sandbox retry, which
    comes when its clock moves. `bind` is the address listened on; `host` the one registered
    (a sandbox in a container reaches the receiver at the host's address, e.g.
    `host.docker.internal` with `bind="0.0.0.0"`).
    """

    def __init__(
        self,
        client: SandboxClient,
        secret: Optional[str] = None,
        respond: Optional[Callable[[Delivery], int]] = None,
        bind: str = "127.0.0.1",
        host: Optional[str] = None,
        path: str = "/webhooks",
    ) -> None:
        self.client = client
        self.secret = secret if secret is not None else client.token
        #: The status answered to a verified delivery; may be changed between deliveries.
        self.respond: Callable[[Delivery], int] = respond or (lambda delivery: 200)
        self._deliveries: List[Delivery] = []
        self._arrived = threading.Condition()
        self._server = ThreadingHTTPServer((bind, 0), self._handler())
        self._server.daemon_threads = True
        port = self._server.server_address[1]
        registered = host or ("127.0.0.1" if bind in _ANY_ADDRESS else bind)
        if ":" in registered and not registered.startswith("["):
            registered = f"[{registered}]"
        #: Where the tenant's webhooks now go.
        self.url = f"http://{registered}:{port}{path}"
        self._thread = threading.Thread(
            target=self._server.serve_forever, name="card-sandbox webhook receiver", daemon=True
        )
        self._thread.start()
        try:
            self._before = client.webhook()
            client.set_webhook(self.url, self.secret)
        except BaseException:
            self._stop_serving()
            raise

    @property
    def deliveries(self) -> List[Delivery]:
        """Every delivery so far, oldest first, verified or not."""
        with self._arrived:
            return list(self._deliveries)

    def wait_for(
        self,
        event: str,
        where: Optional[Callable[[Delivery], bool]] = None,
        timeout: float = 5.0,
    ) -> Delivery:
        """
        The first verified delivery of `event` (past or to come) that `where` accepts. Raises
        `WebhookTimeout` after `timeout` seconds, naming every delivery that did arrive.
        """
        deadline = time.monotonic() + timeout
        with self._arrived:
            while True:
                for delivery in self._deliveries:
                    if delivery.verified and delivery.event == event:
                        if where is None or where(delivery):
                            return delivery
                left = deadline - time.monotonic()
                if left <= 0:
                    raise WebhookTimeout(self._timeout_message(event, timeout))
                self._arrived.wait(left)

    def _timeout_message(self, event: str, timeout: float) -> str:
        seen = [
            f"{d.event or '?'}{'' if d.verified else ' (bad signature)'}" for d in self._deliveries
        ]
        received = ", ".join(seen) if seen else "nothing"
        return f"no verified {event} delivery within {timeout:g} s (received: {received})"

    def close(self) -> None:
        """Stops listening and puts the tenant's webhook endpoint back as it was."""
        self._stop_serving()
        before = self._before
        url = before["url"] if before["url_source"] == "tenant" else None
        secret = before["secret"] if before["secret_source"] == "tenant" else None
        self.client.set_webhook(url, secret)

    def _stop_serving(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self) -> WebhookReceiver:
        return self

    def __exit__(
        self,
        kind: Optional[Type[BaseException]],
        error: Optional[BaseException],
        traceback: Optional[TracebackType],
    ) -> None:
        self.close()

    # ---- the HTTP side ----

    def _receive(self, raw: bytes, headers: Dict[str, str]) -> int:
        """Keeps a delivery; the status to answer."""
        raw_body = raw.decode("utf-8", errors="replace")
        try:
            body: Any = json.loads(raw_body)
        except ValueError:
            body = None
        event = body.get("event") if isinstance(body, dict) else None
        delivery = Delivery(
            event=event if isinstance(event, str) else "",
            data=body.get("data") if isinstance(body, dict) else None,
            body=body,
            raw_body=raw_body,
            headers=headers,
            verified=verify_signature(raw, headers.get(SIGNATURE_HEADER), self.secret),
        )
        with self._arrived:
            self._deliveries.append(delivery)
            self._arrived.notify_all()
        return self.respond(delivery) if delivery.verified else 401

    def _handler(self) -> Type[BaseHTTPRequestHandler]:
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                if length > MAX_BODY_BYTES:
                    self._answer(413)
                    return
                raw = self.rfile.read(length)
                headers = {name.lower(): value for name, value in self.headers.items()}
                try:
                    status = receiver._receive(raw, headers)
                except Exception:
                    status = 500
                self._answer(status)

            def _answer(self, status: int) -> None:
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", "2")
                self.end_headers()
                self.wfile.write(b"{}")

            def log_message(self, format: str, *args: Any) -> None:
                """Quiet: pytest shows what a test prints, and a delivery is not news."""

        return Handler
