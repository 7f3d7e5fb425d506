"""Python client of the Community Platform API (standard library only)."""

from ._http import Response, RetryInfo, new_idempotency_key, normalize_base_url, urllib_transport
from . import events
from .client import Client
from .errors import ApiError
from .events import AnyWebhookEvent
from .pagination import Paginated
from .types import *  # noqa: F401,F403 - the resource types
from .types import __all__ as _type_names
from .webhooks import WebhookVerificationError, verify_webhook

__version__ = "0.1.0"

__all__ = [
    "AnyWebhookEvent",
    "ApiError",
    "Client",
    "Paginated",
    "Response",
    "RetryInfo",
    "WebhookVerificationError",
    "events",
    "new_idempotency_key",
    "normalize_base_url",
    "urllib_transport",
    "verify_webhook",
] + list(_type_names)
