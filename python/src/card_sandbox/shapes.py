"""
What the control plane answers (docs/control-plane.md), as TypedDicts: the types of the Node
client's answers (src/clients/client.ts), for editors and mypy. At run time they are plain dicts.
"""
from __future__ import annotations

from typing import Any, Dict, List, Literal, Optional, TypedDict

ClockMode = Literal["real", "manual"]
TransitionResource = Literal[
    "card-users", "cards", "transactions", "payments", "disburses", "disputes"
]
DisputeReason = Literal[
    "duplicate",
    "not_received",
    "fraudulent",
    "product_not_as_described",
    "service_not_as_described",
    "canceled",
    "other",
]
WalletCodeNetwork = Literal["orange-money-sn", "orange-money-ci"]
WebhookEventStatus = Literal["pending", "delivered", "failed", "skipped"]


class Health(TypedDict):
    status: str


class Clock(TypedDict):
    mode: ClockMode
    now: str
    now_ms: int
    speed: float


class ClockMoved(Clock):
    transitions_run: int


class _FiredJobRequired(TypedDict):
    at: str
    resource: str
    reference: str


# `from` is a keyword: the functional form
_FiredJobMove = TypedDict(
    "_FiredJobMove", {"from": str, "to": str, "meaning": str, "what": str}, total=False
)


class FiredJob(_FiredJobRequired, _FiredJobMove):
    """A job that did something in a run until idle: a move (`from`, `to`) or `what`."""


class RunUntilIdle(ClockMoved):
    fired: List[FiredJob]


Delays = Dict[str, int]


class Job(TypedDict):
    resource: str
    reference: str
    action: str
    due_at: str


# `from` is a keyword: the functional form
Transition = TypedDict("Transition", {"resource": str, "reference": str, "from": str, "to": str})


PageMeta = TypedDict(
    "PageMeta",
    {
        "current_page": int,
        "from": Optional[int],
        "last_page": int,
        "per_page": int,
        "to": Optional[int],
        "total": int,
    },
)


class CardFunding(TypedDict):
    transaction: Dict[str, Any]
    balance: int


class BusinessAccount(TypedDict):
    business: str
    float_balance: int


class Dispute(TypedDict):
    reference: str
    transaction_slug: str
    reason: DisputeReason
    status: str


class WalletCode(TypedDict):
    code: str
    phone: str
    network: WalletCodeNetwork
    expires_at: str


class WebhookEndpoint(TypedDict):
    url: Optional[str]
    secret: str
    url_source: Literal["tenant", "flag", "none"]
    secret_source: Literal["tenant", "flag", "token"]


class WebhookAttempt(TypedDict):
    attempt: int
    at: str
    url: str
    request_headers: Optional[Dict[str, str]]
    status_code: Optional[int]
    latency_ms: int
    response: Optional[str]
    error: Optional[str]


class WebhookEvent(TypedDict):
    id: str
    type: str
    extension: bool
    status: WebhookEventStatus
    created_at: str
    next_attempt_at: Optional[str]
    body: str
    attempts: List[WebhookAttempt]


class WebhookEventPage(TypedDict):
    """`webhooks()`: a page of events, newest first."""

    data: List[WebhookEvent]
    meta: PageMeta


class WebhookReplayed(TypedDict):
    id: str
    status: WebhookEventStatus


class JournalEntry(TypedDict):
    id: str
    at: str
    wall_at: str
    method: str
    path: str
    query: str
    status: int
    latency_ms: int
    request: Dict[str, Any]
    response: Dict[str, Any]


class JournalPage(TypedDict):
    """`requests()`: a page of the journal, newest first."""

    data: List[JournalEntry]
    meta: PageMeta


class ScenarioInForce(TypedDict):
    name: str
    source: str
    description: Optional[str]
    delays: Dict[str, int]
    rules: int


class SnapshotInfo(TypedDict):
    name: str
    taken_at: str
    rows: int


class SnapshotRestored(TypedDict):
    name: str
    clock: Dict[str, str]


class FixtureInfo(TypedDict):
    name: str
    description: Optional[str]


class FixtureApplied(TypedDict):
    name: str
    steps: int


__all__ = [
    "BusinessAccount",
    "CardFunding",
    "Clock",
    "ClockMode",
    "ClockMoved",
    "Delays",
    "Dispute",
    "DisputeReason",
    "FiredJob",
    "FixtureApplied",
    "FixtureInfo",
    "Health",
    "Job",
    "JournalEntry",
    "JournalPage",
    "PageMeta",
    "RunUntilIdle",
    "ScenarioInForce",
    "SnapshotInfo",
    "SnapshotRestored",
    "Transition",
    "TransitionResource",
    "WalletCode",
    "WalletCodeNetwork",
    "WebhookAttempt",
    "WebhookEndpoint",
    "WebhookEvent",
    "WebhookEventPage",
    "WebhookEventStatus",
    "WebhookReplayed",
]
