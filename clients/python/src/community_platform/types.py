"""The main resources as the service answers them (JSON keys as sent, camelCase).

Every resource and request body is generated from the service's OpenAPI document into
``types_generated.py`` (``TweetDto`` -> ``Tweet``) and re-exported here. What is written here is what
the document does not name: the page of an /api/sdk list (its schema is inline in each list route),
the body every webhook delivery shares (the document has one schema per event type: see events.py)
and the older name of a validation detail.
"""

from typing import Any, Dict, List, Optional, TypedDict

from .events import WebhookEventType  # generated from the document's event schemas
from . import types_generated
from .types_generated import *  # noqa: F401,F403 - every schema the routes take or answer
from .types_generated import ValidationDetail

#: One entry of an error's ``details`` (``ValidationDetailDto``), by the name this package first gave it.
ErrorDetail = ValidationDetail


class WebhookEvent(TypedDict):
    """The body of every delivery (its ``webhook-id`` header is ``id``); ``AnyWebhookEvent`` of
    events.py types ``data`` per ``type``."""

    id: str
    type: WebhookEventType
    timestamp: str
    communityId: str
    #: the id of the resource the event is about (the endpoint for operational events); None for an
    #: event raised before subjects were recorded
    subject: Optional[str]
    data: Dict[str, Any]


class Page(TypedDict):
    """A page of an /api/sdk list (``page``/``limit``)."""

    items: List[Any]
    page: int
    limit: int
    total: int
    hasMore: bool


# In the form type checkers follow (``__all__ += module.__all__``).
__all__ = ["ErrorDetail", "Page", "WebhookEvent", "WebhookEventType"]
__all__ += types_generated.__all__
