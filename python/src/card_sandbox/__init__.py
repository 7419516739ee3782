"""
card-sandbox for Python test suites (docs/python.md): a client of the sandbox's control plane,
the webhook signature helpers and a webhook receiver, and (plugin.py, loaded by pytest through
its entry point) the pytest fixtures `sandbox`, `sandbox_env`, `webhook_receiver` and
`sandbox_server`. Standard library only.
"""
from .client import (
    Duration,
    Instant,
    SandboxClient,
    SandboxClientError,
    sandbox_origin,
    sandbox_settings,
)
from .launcher import SandboxNotFound, SandboxProcess, SandboxStartError, start_sandbox
from .receiver import Delivery, WebhookReceiver, WebhookTimeout
from .signatures import SIGNATURE_HEADER, SignedPayload, sign_payload, verify_signature

__version__ = "0.1.0"

__all__ = [
    "SIGNATURE_HEADER",
    "Delivery",
    "Duration",
    "Instant",
    "SandboxClient",
    "SandboxClientError",
    "SandboxNotFound",
    "SandboxProcess",
    "SandboxStartError",
    "SignedPayload",
    "WebhookReceiver",
    "WebhookTimeout",
    "__version__",
    "sandbox_origin",
    "sandbox_settings",
    "sign_payload",
    "start_sandbox",
    "verify_signature",
]
