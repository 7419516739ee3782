"""
A client of the sandbox's control plane (docs/control-plane.md), for one tenant (one token):
the methods of the Node client (`card-sandbox/client`, `createSandboxClient`) in Python's names,
`advanceClock` → `advance_clock`. Each returns the `data` of the answer (lists: `{"data",
"meta"}`); any answer but a 2xx raises `SandboxClientError` with `status` and the parsed `body`.
Standard library only (urllib).

    sandbox = SandboxClient("http://127.0.0.1:4010", token="my-suite")
    sandbox.reset()
    sandbox.advance_clock("5s")              # or timedelta(seconds=5)
    sandbox.transition("card-users", reference, "passed")
"""
from __future__ import annotations

import json
import urllib.error
import urllib.parse
import urllib.request
from datetime import datetime, timedelta, timezone
from typing import Any, Dict, List, Mapping, Optional, Union, cast

from .shapes import (
    BusinessAccount,
    CardFunding,
    Clock,
    ClockMode,
    ClockMoved,
    Delays,
    Dispute,
    DisputeReason,
    FixtureInfo,
    FixtureApplied,
    Health,
    Job,
    JournalPage,
    RunUntilIdle,
    ScenarioInForce,
    SnapshotInfo,
    SnapshotRestored,
    Transition,
    TransitionResource,
    WalletCode,
    WalletCodeNetwork,
    WebhookEndpoint,
    WebhookEventPage,
    WebhookEventStatus,
    WebhookReplayed,
)

#: How far to move a clock: `"500ms"`, `"30s"`, `"15m"`, `"2h"`, `"1d"`, `"1h30m"`, a
#: `timedelta`, or a number of milliseconds.
Duration = Union[str, int, timedelta]
#: An instant: an aware `datetime`, or ISO 8601 text with an offset (`2026-03-01T09:00:00Z`).
Instant = Union[str, datetime]

_LOOPBACK = {"127.0.0.1", "localhost", "::1", "[::1]"}
#: A call that sends no body (None is sent as JSON null).
_NO_BODY: Any = object()


class SandboxClientError(Exception):
    """
    Raised for every answer that is not a 2xx. `body` is the parsed JSON: the sandbox's error
    shape (`message`, `statusCode`, `errors` on a 422, `from`/`to`/`allowed` on an illegal move,
    a 409), or the text of an answer that is not JSON (None when empty).
    """

    def __init__(self, method: str, path: str, status: int, body: Any) -> None:
        self.method = method
        self.path = path
        self.status = status
        self.body: Any = body
        super().__init__(f"{method} {path} answered {status}: {_message_of(body)}")


def _message_of(body: Any) -> str:
    if isinstance(body, dict) and "message" in body:
        message = str(body["message"])
        allowed = body.get("allowed")
        if isinstance(allowed, list):
            message += (
                f" (allowed from {body.get('from')}: {', '.join(map(str, allowed)) or 'none'})"
            )
        return message
    return body[:200] if isinstance(body, str) else json.dumps(body)


def sandbox_origin(base_url: str) -> str:
    """The origin the control plane lives under: without a trailing slash nor `/v1`."""
    origin = base_url.rstrip("/")
    return origin[: -len("/v1")] if origin.endswith("/v1") else origin


def duration(value: Duration) -> Union[str, int]:
    """A duration as the control plane reads it: text as it is, a timedelta in milliseconds."""
    if isinstance(value, timedelta):
        whole, rest = divmod(value, timedelta(milliseconds=1))
        if rest:
            raise ValueError(f"a duration is whole milliseconds (got {value!r})")
        return int(whole)
    return value


def instant(value: Instant) -> str:
    """An instant as ISO 8601 in UTC (`2026-03-01T09:00:00.000Z`); a naive datetime is refused."""
    if isinstance(value, str):
        return value
    if value.tzinfo is None or value.utcoffset() is None:
        raise ValueError(
            f"give an aware datetime, e.g. datetime(2026, 3, 1, tzinfo=timezone.utc) (got {value!r})"
        )
    text = value.astimezone(timezone.utc).isoformat(timespec="milliseconds")
    return text.replace("+00:00", "Z")


def _query(params: Mapping[str, Optional[Union[str, int]]]) -> str:
    given = {key: str(value) for key, value in params.items() if value is not None}
    return f"?{urllib.parse.urlencode(given)}" if given else ""


class SandboxClient:
    """
    A client for one tenant of one sandbox. `base_url` is the sandbox's origin
    (`http://127.0.0.1:4010`) or its `/v1` base: both work.
    """

    def __init__(self, base_url: str, token: str, timeout: float = 30.0) -> None:
        #: The sandbox's origin, without `/v1`.
        self.url = sandbox_origin(base_url)
        #: The `/v1` base (no trailing slash); alal-python's ALAL_BASE_URL is this plus `/`.
        self.base_url = f"{self.url}/v1"
        #: The bearer token: one token is one tenant.
        self.token = token
        self.timeout = timeout
        host = urllib.parse.urlsplit(self.url).hostname or ""
        # a proxy of the environment (HTTP_PROXY) would not reach a sandbox on this machine
        handlers = [urllib.request.ProxyHandler({})] if host in _LOOPBACK else []
        self._opener = urllib.request.build_opener(*handlers)

    def __repr__(self) -> str:
        masked = "*" * max(len(self.token) - 4, 0) + self.token[-4:]
        return f"SandboxClient({self.url!r}, token={masked!r})"

    # ---- the transport ----

    def _call(self, method: str, path: str, body: Any = None, send: bool = False) -> Any:
        """One call; the parsed body of a 2xx, else a SandboxClientError."""
        headers = {"Authorization": f"Bearer {self.token}", "Accept": "application/json"}
        data = None
        if send:
            headers["Content-Type"] = "application/json"
            data = json.dumps(body).encode("utf-8")
        request = urllib.request.Request(self.url + path, data, headers, method=method)
        try:
            with self._opener.open(request, timeout=self.timeout) as response:
                return _parse(response.read())
        except urllib.error.HTTPError as error:
            with error:
                answer = _parse(error.read())
            raise SandboxClientError(method, path, error.code, answer) from None

    def _data(self, method: str, path: str, body: Any = _NO_BODY) -> Any:
        """A control-plane call answering the envelope: its `data`."""
        send = body is not _NO_BODY
        answer = self._call(method, f"/__sandbox{path}", body if send else None, send)
        return answer["data"]

    def _page(self, path: str) -> Any:
        answer = self._call("GET", f"/__sandbox{path}")
        return {"data": answer["data"], "meta": answer["meta"]}

    # ---- the control plane ----

    def health(self) -> Health:
        """`GET /__sandbox/health` (no token needed)."""
        return cast(Health, self._call("GET", "/__sandbox/health"))

    def reset(self, clock: Optional[ClockMode] = None) -> Dict[str, str]:
        """
        Deletes everything of the tenant; clock, delays, float and scenarios start over.
        `clock="manual"` then puts its clock in that mode: a reset clock takes the sandbox's
        default mode, and a sandbox someone else started may default to real clocks.
        """
        answer = cast(Dict[str, str], self._data("POST", "/reset"))
        if clock is not None:
            self.set_clock_mode(clock)
        return answer

    def clock(self) -> Clock:
        return cast(Clock, self._data("GET", "/clock"))

    def advance_clock(self, by: Duration) -> ClockMoved:
        """Moves the clock and runs what fell due, in order, before it returns."""
        return cast(ClockMoved, self._data("POST", "/clock/advance", {"by": duration(by)}))

    def set_clock_mode(self, mode: ClockMode) -> Clock:
        """`"manual"` or `"real"`, keeping the current sandbox time."""
        return cast(Clock, self._data("PUT", "/clock", {"mode": mode}))

    def set_clock(self, now: Instant) -> ClockMoved:
        """
        Sets the clock to an instant, in manual mode, and runs what fell due on the way; an
        instant before the clock's time is refused (422).
        """
        body = {"mode": "manual", "now": instant(now)}
        return cast(ClockMoved, self._data("PUT", "/clock", body))

    def run_until_idle(self, until: Optional[Instant] = None) -> RunUntilIdle:
        """
        Moves the clock to each next due job and runs it, until none is left (or the next is
        after `until`, where the clock then stands). Answers what fired, in order (`fired`).
        """
        body = {} if until is None else {"until": instant(until)}
        return cast(RunUntilIdle, self._data("POST", "/clock/run-due", body))

    def delays(self) -> Delays:
        """Each delay in milliseconds."""
        return cast(Delays, self._data("GET", "/delays"))

    def set_delays(
        self, delays: Optional[Mapping[str, Duration]] = None, **more: Duration
    ) -> Delays:
        """Overrides some delays (`card_issuing="500ms"`); none given restores the defaults."""
        given = {**(delays or {}), **more}
        body = {name: duration(value) for name, value in given.items()}
        return cast(Delays, self._data("PUT", "/delays", body))

    def jobs(self) -> List[Job]:
        """What is scheduled, in due order."""
        return cast(List[Job], self._data("GET", "/jobs"))

    def transition(self, resource: TransitionResource, reference: str, to: str) -> Transition:
        """
        Moves a resource along its state machine (`"card-users"`, `"cards"`, `"transactions"`,
        `"payments"`, `"disburses"`, `"disputes"`); an illegal move raises a 409 whose error
        names the states allowed (`error.body["allowed"]`).
        """
        path = f"/{resource}/{_ref(reference)}/transition"
        return cast(Transition, self._data("POST", path, {"to": to}))

    def fund_card(self, reference: str, amount: int) -> CardFunding:
        """A `recharge` into the card (already `success`)."""
        path = f"/cards/{_ref(reference)}/fund"
        return cast(CardFunding, self._data("POST", path, {"amount": amount}))

    def withdraw_card(self, reference: str, amount: int) -> CardFunding:
        """A `withdraw` out of the card (422 when short)."""
        path = f"/cards/{_ref(reference)}/withdraw"
        return cast(CardFunding, self._data("POST", path, {"amount": amount}))

    def business(self) -> BusinessAccount:
        return cast(BusinessAccount, self._data("GET", "/business"))

    def fund_business(self, amount: int) -> BusinessAccount:
        return cast(BusinessAccount, self._data("POST", "/business/fund", {"amount": amount}))

    def create_dispute(self, transaction_slug: str, reason: DisputeReason) -> Dispute:
        """Opens a dispute on one of the tenant's transactions."""
        body = {"transaction_slug": transaction_slug, "reason": reason}
        return cast(Dispute, self._data("POST", "/disputes", body))

    def wallet_code(self, phone: str, network: WalletCodeNetwork) -> WalletCode:
        """The payer's one-time orange-money code, for a wallet-to-card pull."""
        body = {"phone": phone, "network": network}
        return cast(WalletCode, self._data("POST", "/wallet-codes", body))

    def webhook(self) -> WebhookEndpoint:
        """Where the tenant's webhooks go and what signs them."""
        return cast(WebhookEndpoint, self._data("GET", "/webhook"))

    def set_webhook(self, url: Optional[str], secret: Optional[str] = None) -> WebhookEndpoint:
        """Sets where the tenant's webhooks go (None: the default) and what signs them."""
        body = {"url": url, "secret": secret}
        return cast(WebhookEndpoint, self._data("PUT", "/webhook", body))

    def webhooks(
        self,
        status: Optional[WebhookEventStatus] = None,
        page: Optional[int] = None,
        per_page: Optional[int] = None,
    ) -> WebhookEventPage:
        """Webhook events, newest first, each with its delivery attempts."""
        query = _query({"status": status, "page": page, "per_page": per_page})
        return cast(WebhookEventPage, self._page(f"/webhooks{query}"))

    def replay_webhook(self, id: str) -> WebhookReplayed:
        """Sends an event again."""
        return cast(WebhookReplayed, self._data("POST", f"/webhooks/{_ref(id)}/replay"))

    def requests(
        self,
        method: Optional[str] = None,
        path: Optional[str] = None,
        status: Optional[Union[int, str]] = None,
        page: Optional[int] = None,
        per_page: Optional[int] = None,
    ) -> JournalPage:
        """
        The request journal: what the tenant sent and got, newest first. `path` may hold `*`
        (`"/v1/cards/*"`); `status` is exact (201) or a class (`"4xx"`).
        """
        query = _query(
            {"method": method, "path": path, "status": status, "page": page, "per_page": per_page}
        )
        return cast(JournalPage, self._page(f"/requests{query}"))

    def clear_requests(self) -> None:
        """Empties the tenant's request journal."""
        self._call("DELETE", "/__sandbox/requests")

    def scenarios(self) -> List[ScenarioInForce]:
        """The scenarios in force for the tenant: the files', then its own."""
        return cast(List[ScenarioInForce], self._data("GET", "/scenarios"))

    def add_scenario(self, scenario: Mapping[str, Any]) -> List[ScenarioInForce]:
        """Adds a scenario (the fields of a scenario file) for this tenant until its reset."""
        return cast(List[ScenarioInForce], self._data("POST", "/scenarios", dict(scenario)))

    def remove_scenario(self, name: str) -> List[ScenarioInForce]:
        """
        Takes one of the tenant's scenarios out of force; answers those left. A file's scenario
        is a 409 (edit the file), an unknown name a 404 listing those in force.
        """
        return cast(List[ScenarioInForce], self._data("DELETE", f"/scenarios/{_ref(name)}"))

    def snapshot(self, name: str) -> SnapshotInfo:
        """Saves the tenant's whole state under `name`; it outlives the tenant's resets."""
        return cast(SnapshotInfo, self._data("POST", "/snapshots", {"name": name}))

    def restore(self, name: str) -> SnapshotRestored:
        """Puts the tenant back as the snapshot holds it, its clock at the snapshot's instant."""
        return cast(SnapshotRestored, self._data("POST", f"/snapshots/{_ref(name)}/restore"))

    def snapshots(self) -> List[SnapshotInfo]:
        return cast(List[SnapshotInfo], self._data("GET", "/snapshots"))

    def delete_snapshot(self, name: str) -> List[SnapshotInfo]:
        return cast(List[SnapshotInfo], self._data("DELETE", f"/snapshots/{_ref(name)}"))

    def fixtures(self) -> List[FixtureInfo]:
        """The fixtures of the sandbox's `fixtures/`: name and a sentence of description."""
        return cast(List[FixtureInfo], self._data("GET", "/fixtures"))

    def apply_fixture(self, fixture: Union[str, Mapping[str, Any]]) -> FixtureApplied:
        """
        Seeds the tenant with a named data set of `fixtures/` (a name), or an inline one (a
        mapping with `name` and `steps`), all or nothing.
        """
        body: Dict[str, Any] = (
            {"name": fixture} if isinstance(fixture, str) else {"fixture": dict(fixture)}
        )
        return cast(FixtureApplied, self._data("POST", "/fixtures", body))

    def v1(self, method: str, path: str, body: Any = None) -> Any:
        """
        Calls the `/v1` API as this tenant; the whole parsed body. `path` is under `/v1`:
        `sandbox.v1("GET", "/cards")`; a body is sent as JSON when given.
        """
        path = path if path.startswith("/") else f"/{path}"
        return self._call(method.upper(), f"/v1{path}", body, send=body is not None)


def sandbox_settings(client: SandboxClient) -> Dict[str, str]:
    """
    What the code under test needs to reach the client's tenant, as variables: `ALAL_BASE_URL`
    (the /v1 base **with** its trailing slash: alal-python appends paths without a leading one),
    `ALAL_API_KEY` (the token), and `CARD_SANDBOX_URL` and `CARD_SANDBOX_TOKEN` (as the
    card-sandbox commands read them).
    """
    return {
        "ALAL_BASE_URL": f"{client.base_url}/",
        "ALAL_API_KEY": client.token,
        "CARD_SANDBOX_URL": client.url,
        "CARD_SANDBOX_TOKEN": client.token,
    }


def _ref(value: str) -> str:
    return urllib.parse.quote(value, safe="")


def _parse(raw: bytes) -> Any:
    text = raw.decode("utf-8", errors="replace")
    if not text:
        return None
    try:
        return json.loads(text)
    except ValueError:
        return text
