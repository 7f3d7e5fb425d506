"""The Community Platform API: every route of the interface, grouped as the service groups them.

Every route is a method of routes_generated.py, generated from the service's OpenAPI document
(``npm run clients:generate`` at the repository root). This file holds only what the document cannot
say: keeping the token pair the auth routes answer, the delivery log walked by offset, datetimes sent
as ISO 8601, and the shorter arguments of a few routes.
"""

import datetime
from typing import Any, Callable, Dict, Literal, Mapping, Optional, Sequence, Union

from ._http import HttpClient, RetryInfo, Transport
from .pagination import Paginated
from .routes_generated import AuthRoutes, Routes, WebhooksDeliveriesRoutes, WebhooksRoutes
from .types import Delivery, RecoverResult, TokenPair


def _iso(value: Union[str, datetime.datetime, None]) -> Optional[str]:
    if isinstance(value, datetime.datetime):
        if value.tzinfo is None:
            raise ValueError("Give an aware datetime (with tzinfo) or an ISO 8601 string")
        return value.astimezone(datetime.timezone.utc).isoformat().replace("+00:00", "Z")
    return value


class Auth(AuthRoutes):
    def login(self, email: str, password: str, community_id: Optional[str] = None) -> TokenPair:  # type: ignore[override]
        """Logs in; the client keeps the pair (and hands it to on_tokens) for the calls that follow."""
        pair = super().login(email, password, community_id=community_id)
        self._http.set_tokens(pair)
        return pair

    def refresh(self) -> TokenPair:
        """Rotates a still-valid access token (it is consumed); the client keeps the new pair."""
        pair = super().refresh()
        self._http.set_tokens(pair)
        return pair

    def refresh_token(self, refresh_token: Optional[str] = None) -> TokenPair:  # type: ignore[override]
        """Trades the refresh token (the given one, or the client's) for a new pair, which the client keeps."""
        pair = super().refresh_token(refresh_token or self._http.refresh_token)
        self._http.set_tokens(pair)
        return pair


class Deliveries(WebhooksDeliveriesRoutes):
    """The delivery log of an endpoint: ``client.webhooks.deliveries(community_id, webhook_id)``
    walks it, newest first, every attempt; ``.page`` fetches one page, ``.resend`` sends one again."""

    def __call__(
        self,
        community_id: str,
        webhook_id: str,
        status: Optional[str] = None,
        limit: Optional[int] = None,
    ) -> Paginated[Delivery]:
        """``limit`` (default 50, max 100) at a time, walked by ``offset``; ``status`` filters."""
        return Paginated(
            lambda _index, offset: self.page(
                community_id, webhook_id, status=status, limit=limit, offset=offset
            )
        )


class Webhooks(WebhooksRoutes):
    """Webhook endpoints of a community (login token with WEBHOOKS_MANAGE)."""

    def __init__(self, http: HttpClient) -> None:
        super().__init__(http)
        self.deliveries: Deliveries = Deliveries(http)

    def recover(  # type: ignore[override]
        self,
        community_id: str,
        webhook_id: str,
        since: Union[str, datetime.datetime],
        until: Union[str, datetime.datetime, None] = None,
        *,
        include: Optional[Sequence[Literal["failed", "missed"]]] = None,
        idempotency_key: Optional[str] = None,
    ) -> RecoverResult:
        """Sends again, once, every event whose latest attempt FAILED and was created in
        [since, until) (until defaults to now; at most 14 days), and with ``include=["missed"]``
        every event of the window the endpoint missed while paused or disabled, in commit order
        (``include`` defaults to ``["failed"]``); answers how many were queued, how many remain
        (one call queues at most the service's WEBHOOK_RECOVER_MAX: call again) and how many
        missed events are past the service's retention (``expired``)."""
        fields: Dict[str, Any] = {} if include is None else {"include": list(include)}
        return super().recover(
            community_id,
            webhook_id,
            _iso(since),
            until=_iso(until),
            idempotency_key=idempotency_key,
            **fields,
        )


class Client(Routes):
    """The Community Platform API.

    ``base_url`` is the service's base address (``https://community.example.com``, a path prefix
    is kept); the client appends ``/api/...`` itself and refuses a base ending in ``/api`` or
    ``/api/v1`` (ValueError). ``api_key`` is sent as X-Api-Key on the routes that take a key;
    ``access_token`` as ``Authorization: Bearer``. With ``refresh_token``, a 401 on a Bearer call
    renews the pair once through ``/api/auth/refresh-token`` and repeats the call; every new pair
    goes to ``on_tokens(pair)``. ``community_id`` (id or slug) is sent as X-Tenant-Id.

    Every write but the auth routes sends an ``Idempotency-Key`` (a fresh UUID per call, or the
    ``idempotency_key=`` given), the same on each of its retries. A 429 is retried on any call after
    its Retry-After (up to ``max_retry_delay`` seconds), a 409 IDEMPOTENCY_KEY_IN_USE after its
    Retry-After too; a network failure on GET, PUT, DELETE and every call with a key, after
    ``retry_base_delay`` doubled each time; ``max_retries`` (default 2, 0 turns it off) bounds the
    retries of one call, whatever their reason.

    Each group of routes is an attribute (``client.tweets``), made by ``Routes``
    (routes_generated.py); the groups below are the hand-written ones that take their place.
    """

    _group_classes = {"auth": Auth, "webhooks": Webhooks}
    auth: Auth
    webhooks: Webhooks

    def __init__(
        self,
        base_url: str,
        api_key: Optional[str] = None,
        access_token: Optional[str] = None,
        refresh_token: Optional[str] = None,
        on_tokens: Optional[Callable[[TokenPair], None]] = None,
        community_id: Optional[str] = None,
        *,
        max_retries: int = 2,
        retry_base_delay: float = 0.5,
        max_retry_delay: float = 60.0,
        timeout: float = 30.0,
        on_retry: Optional[Callable[[RetryInfo], None]] = None,
        transport: Optional[Transport] = None,
        sleep: Optional[Callable[[float], None]] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> None:
        self.http = HttpClient(
            base_url,
            api_key=api_key,
            access_token=access_token,
            refresh_token=refresh_token,
            on_tokens=on_tokens,
            community_id=community_id,
            max_retries=max_retries,
            retry_base_delay=retry_base_delay,
            max_retry_delay=max_retry_delay,
            timeout=timeout,
            on_retry=on_retry,
            transport=transport,
            sleep=sleep,
            headers=headers,
        )
        super().__init__(self.http)

    @property
    def base_url(self) -> str:
        return self.http.base_url

    @property
    def tokens(self) -> Dict[str, Optional[str]]:
        """The tokens the client holds now (after a login or an automatic renewal)."""
        return {"access_token": self.http.access_token, "refresh_token": self.http.refresh_token}
