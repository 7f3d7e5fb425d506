"""The Community Platform API: every route of the interface, grouped as the service groups them."""

import datetime
import urllib.parse
from typing import Any, Callable, Dict, List, Mapping, Optional, Union

from ._http import AUTH_BEARER, AUTH_NONE, HttpClient, RetryInfo, Transport
from .pagination import Paginated
from .types import (
    Advertisement,
    ApiKey,
    Comment,
    Community,
    CreatedApiKey,
    CreatedWebhook,
    Delivery,
    DeliveryPage,
    Member,
    RecoverResult,
    RotatedSecret,
    SdkCommunity,
    Task,
    TokenPair,
    Tweet,
    Webhook,
)


def _seg(value: str) -> str:
    """One path segment, escaped."""
    return urllib.parse.quote(str(value), safe="")


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


def _body(fields: Mapping[str, Any]) -> Dict[str, Any]:
    """Keyword arguments as the JSON body: snake_case names become the service's camelCase
    (``community_id`` -> ``communityId``), ``None`` is left out, values are sent as given."""
    return {_camel(name): value for name, value in fields.items() if value is not None}


def _iso(value: Union[str, datetime.datetime, None]) -> Optional[str]:
    if isinstance(value, datetime.datetime):
        if value.tzinfo is None:
            raise ValueError("Give an aware datetime (with tzinfo) or an ISO 8601 string")
        return value.astimezone(datetime.timezone.utc).isoformat().replace("+00:00", "Z")
    return value


class _Group:
    def __init__(self, http: HttpClient) -> None:
        self._http = http

    def _paged(self, path: str, query: Mapping[str, Any]) -> Paginated[Any]:
        """An /api/sdk list, walked page by page (``page``, ``limit``)."""
        params = _body(query)
        return Paginated(
            lambda index, _offset: self._http.request(
                "GET", path, query=dict(params, page=index + 1)
            )
        )


class Auth(_Group):
    def login(self, email: str, password: str, community_id: Optional[str] = None) -> TokenPair:
        """Logs in; the client keeps the pair (and hands it to on_tokens) for the calls that follow."""
        pair = self._http.request(
            "POST",
            "/api/auth/login",
            body=_body({"email": email, "password": password, "community_id": community_id}),
            auth=AUTH_NONE,
        )
        self._http.set_tokens(pair)
        return pair

    def refresh(self) -> TokenPair:
        """Rotates a still-valid access token (it is consumed); the client keeps the new pair."""
        pair = self._http.request("POST", "/api/auth/refresh", auth=AUTH_BEARER)
        self._http.set_tokens(pair)
        return pair

    def refresh_token(self, refresh_token: Optional[str] = None) -> TokenPair:
        """Trades the refresh token (the given one, or the client's) for a new pair, which the client keeps."""
        pair = self._http.request(
            "POST",
            "/api/auth/refresh-token",
            body={"refreshToken": refresh_token or self._http.refresh_token},
            auth=AUTH_NONE,
        )
        self._http.set_tokens(pair)
        return pair

    def logout(self) -> Dict[str, Any]:
        """Revokes the token's whole refresh family."""
        return self._http.request("POST", "/api/auth/logout", auth=AUTH_BEARER)

    def logout_all(self) -> Dict[str, Any]:
        """Ends every session of the caller: each login's refresh family and every portal session."""
        return self._http.request("POST", "/api/auth/logout-all", auth=AUTH_BEARER)


class CommunityRoutes(_Group):
    def get(self) -> SdkCommunity:
        return self._http.request("GET", "/api/sdk/community")

    def get_settings(self) -> Dict[str, Any]:
        return self._http.request("GET", "/api/sdk/community/settings")

    def update_settings(self, **fields: Any) -> Dict[str, Any]:
        """name, description, visibility, allow_member_posts, custom_domain."""
        return self._http.request("PATCH", "/api/sdk/community/settings", body=_body(fields))

    def update_branding(self, **fields: Any) -> Dict[str, Any]:
        """logo_url, favicon_url, primary_color, accent_color."""
        return self._http.request("PATCH", "/api/sdk/community/branding", body=_body(fields))

    def verify_custom_domain(self, **fields: Any) -> Dict[str, Any]:
        return self._http.request(
            "POST", "/api/sdk/community/custom-domain/verify", body=_body(fields)
        )


class Tweets(_Group):
    def list(self, **filters: Any) -> Paginated[Tweet]:
        """Every tweet, newest first, fetched ``limit`` (default 20, max 100) at a time."""
        return self._paged("/api/sdk/tweets", filters)

    def page(self, **query: Any) -> Dict[str, Any]:
        """One page: ``page``, ``limit``."""
        return self._http.request("GET", "/api/sdk/tweets", query=_body(query))

    def create(self, content: str, **fields: Any) -> Tweet:
        return self._http.request(
            "POST", "/api/sdk/tweets", body=_body(dict(fields, content=content))
        )

    def update(self, id: str, content: str, **fields: Any) -> Tweet:
        return self._http.request(
            "PATCH", "/api/sdk/tweets/" + _seg(id), body=_body(dict(fields, content=content))
        )

    def delete(self, id: str) -> Dict[str, Any]:
        return self._http.request("DELETE", "/api/sdk/tweets/" + _seg(id))


class Tasks(_Group):
    def list(self, **filters: Any) -> Paginated[Task]:
        return self._paged("/api/sdk/tasks", filters)

    def page(self, **query: Any) -> Dict[str, Any]:
        return self._http.request("GET", "/api/sdk/tasks", query=_body(query))

    def get(self, id: str) -> Task:
        return self._http.request("GET", "/api/sdk/tasks/" + _seg(id))

    def create(self, title: str, **fields: Any) -> Task:
        """title, description, due_at."""
        return self._http.request("POST", "/api/sdk/tasks", body=_body(dict(fields, title=title)))


class Comments(_Group):
    """Comments of a tweet or a task (``parent`` is ``"tweets"`` or ``"tasks"``), oldest first."""

    def _path(self, parent: str, id: str) -> str:
        return "/api/sdk/{}/{}/comments".format(_seg(parent), _seg(id))

    def list(self, parent: str, id: str, **filters: Any) -> Paginated[Comment]:
        return self._paged(self._path(parent, id), filters)

    def page(self, parent: str, id: str, **query: Any) -> Dict[str, Any]:
        return self._http.request("GET", self._path(parent, id), query=_body(query))

    def create(self, parent: str, id: str, content: str, **fields: Any) -> Comment:
        return self._http.request(
            "POST", self._path(parent, id), body=_body(dict(fields, content=content))
        )


class Likes(_Group):
    def like(self, parent: str, id: str) -> Dict[str, Any]:
        """Likes a tweet or task; liking twice answers the same like."""
        return self._http.request(
            "POST", "/api/sdk/{}/{}/like".format(_seg(parent), _seg(id)), body={}
        )

    def unlike(self, parent: str, id: str) -> Dict[str, Any]:
        return self._http.request("DELETE", "/api/sdk/{}/{}/like".format(_seg(parent), _seg(id)))


class Members(_Group):
    def list(self, **filters: Any) -> Paginated[Member]:
        """``role`` filters; ``limit`` sets the page size."""
        return self._paged("/api/sdk/members", filters)

    def page(self, **query: Any) -> Dict[str, Any]:
        return self._http.request("GET", "/api/sdk/members", query=_body(query))

    def add(self, email: str, **fields: Any) -> Dict[str, Any]:
        """email, name, role."""
        return self._http.request("POST", "/api/sdk/members", body=_body(dict(fields, email=email)))

    def bulk_upsert(self, members: List[Mapping[str, Any]], **fields: Any) -> Dict[str, Any]:
        """``members``: a list of ``{"email", "name"?, "role"?}`` (JSON names, sent as given)."""
        return self._http.request(
            "POST", "/api/sdk/members/bulk", body=_body(dict(fields, members=members))
        )

    def set_role(self, id: str, role: str) -> Member:
        return self._http.request(
            "PATCH", "/api/sdk/members/{}/role".format(_seg(id)), body={"role": role}
        )


class Customization(_Group):
    def get_sidebar(self) -> Dict[str, Any]:
        return self._http.request("GET", "/api/sdk/customization/sidebar")

    def replace_sidebar(self, items: List[Mapping[str, Any]], **fields: Any) -> Dict[str, Any]:
        """``items``: a list of ``{"label", "url", "icon"?}``."""
        return self._http.request(
            "PUT", "/api/sdk/customization/sidebar", body=_body(dict(fields, items=items))
        )

    def active_advertisements(self, **filters: Any) -> Paginated[Advertisement]:
        """The advertisements showing now."""
        return self._paged("/api/sdk/customization/advertisements/active", filters)

    def advertisements(self, **filters: Any) -> Paginated[Advertisement]:
        return self._paged("/api/sdk/customization/advertisements", filters)

    def create_advertisement(self, **fields: Any) -> Advertisement:
        """title, image_url, target_url, placement, starts_at, ends_at, is_active."""
        return self._http.request(
            "POST", "/api/sdk/customization/advertisements", body=_body(fields)
        )

    def update_advertisement(self, id: str, **fields: Any) -> Advertisement:
        return self._http.request(
            "PATCH", "/api/sdk/customization/advertisements/" + _seg(id), body=_body(fields)
        )

    def delete_advertisement(self, id: str) -> Dict[str, Any]:
        return self._http.request("DELETE", "/api/sdk/customization/advertisements/" + _seg(id))


class Embed(_Group):
    def create_session(self, **fields: Any) -> Dict[str, Any]:
        """allowed_origin, ttl_seconds, user_ref."""
        return self._http.request("POST", "/api/embed/sessions", body=_body(fields))


class Admin(_Group):
    """The service routes. Creating communities and API keys takes a login token."""

    def me(self) -> Dict[str, Any]:
        return self._http.request("GET", "/api/admin/sdk/me")

    def create_community(self, name: str, slug: str, **fields: Any) -> Community:
        """name, slug, plan (FREE, PRO, ENTERPRISE)."""
        return self._http.request(
            "POST",
            "/api/admin/sdk/communities",
            body=_body(dict(fields, name=name, slug=slug)),
            auth=AUTH_BEARER,
        )

    def create_api_key(self, name: str, community_id: str, **fields: Any) -> CreatedApiKey:
        """The key (``key``) is in this answer only."""
        return self._http.request(
            "POST",
            "/api/admin/sdk/api-keys",
            body=_body(dict(fields, name=name, community_id=community_id)),
            auth=AUTH_BEARER,
        )

    def list_api_keys(self, **query: Any) -> List[ApiKey]:
        return self._http.request(
            "GET", "/api/admin/sdk/api-keys", query=_body(query), auth=AUTH_BEARER
        )

    def revoke_api_key(self, id: str) -> ApiKey:
        return self._http.request("DELETE", "/api/admin/sdk/api-keys/" + _seg(id), auth=AUTH_BEARER)


def _webhook_path(community_id: str, webhook_id: Optional[str] = None, tail: str = "") -> str:
    path = "/api/communities/{}/webhooks".format(_seg(community_id))
    if webhook_id is not None:
        path += "/" + _seg(webhook_id)
    return path + tail


class Deliveries(_Group):
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

    def page(
        self,
        community_id: str,
        webhook_id: str,
        status: Optional[str] = None,
        limit: Optional[int] = None,
        offset: Optional[int] = None,
    ) -> DeliveryPage:
        return self._http.request(
            "GET",
            _webhook_path(community_id, webhook_id, "/deliveries"),
            query={"status": status, "limit": limit, "offset": offset},
            auth=AUTH_BEARER,
        )

    def resend(self, community_id: str, webhook_id: str, delivery_id: str) -> Delivery:
        """Sends that event again (same message id, next attempt number); answers the new PENDING
        attempt. CONFLICT (409) when the endpoint is paused or disabled, for a test delivery, or
        when the event body is no longer stored."""
        return self._http.request(
            "POST",
            _webhook_path(community_id, webhook_id, "/deliveries/{}/resend".format(_seg(delivery_id))),
            body={},
            auth=AUTH_BEARER,
        )


class Webhooks(_Group):
    """Webhook endpoints of a community (login token with WEBHOOKS_MANAGE)."""

    def __init__(self, http: HttpClient) -> None:
        super().__init__(http)
        self.deliveries = Deliveries(http)

    def list(self, community_id: str) -> Dict[str, Any]:
        """``{"items": [Webhook, ...]}``."""
        return self._http.request("GET", _webhook_path(community_id), auth=AUTH_BEARER)

    def create(self, community_id: str, url: str, events: List[str], **fields: Any) -> CreatedWebhook:
        """The signing secret (``secret``) is in this answer only: store it now."""
        return self._http.request(
            "POST",
            _webhook_path(community_id),
            body=_body(dict(fields, url=url, events=events)),
            auth=AUTH_BEARER,
        )

    def update(self, community_id: str, webhook_id: str, **fields: Any) -> Webhook:
        """url, events, description, is_active."""
        return self._http.request(
            "PATCH", _webhook_path(community_id, webhook_id), body=_body(fields), auth=AUTH_BEARER
        )

    def delete(self, community_id: str, webhook_id: str) -> Dict[str, Any]:
        return self._http.request("DELETE", _webhook_path(community_id, webhook_id), auth=AUTH_BEARER)

    def rotate_secret(self, community_id: str, webhook_id: str) -> RotatedSecret:
        """A new secret, shown once; the previous ones stay valid for the overlap window."""
        return self._http.request(
            "POST", _webhook_path(community_id, webhook_id, "/rotate-secret"), auth=AUTH_BEARER
        )

    def test(self, community_id: str, webhook_id: str) -> Delivery:
        """Sends ``webhook.test`` now; a target that fails raises ApiError WEBHOOK_TEST_FAILED
        (500) whose ``body["data"]`` holds the attempt."""
        return self._http.request(
            "POST", _webhook_path(community_id, webhook_id, "/test"), auth=AUTH_BEARER
        )

    def recover(
        self,
        community_id: str,
        webhook_id: str,
        since: Union[str, datetime.datetime],
        until: Union[str, datetime.datetime, None] = None,
    ) -> RecoverResult:
        """Sends again, once, every event whose latest attempt FAILED and was created in
        [since, until) (until defaults to now; at most 14 days); answers how many were queued and
        how many remain (one call queues at most the service's WEBHOOK_RECOVER_MAX: call again)."""
        return self._http.request(
            "POST",
            _webhook_path(community_id, webhook_id, "/recover"),
            body=_body({"since": _iso(since), "until": _iso(until)}),
            auth=AUTH_BEARER,
        )

    def event_types(self) -> Dict[str, Any]:
        """The subscribable event catalog, each with its payload schema and an example."""
        return self._http.request("GET", "/api/webhooks/event-types", auth=AUTH_BEARER)

    def portal_link(self, community_id: str) -> Dict[str, Any]:
        """``{"url", "expiresAt"}``: a single-use link into the webhook portal for the community's
        admin; the token is in the URL's fragment, so hand the whole URL over as it is."""
        return self._http.request("POST", _webhook_path(community_id, None, "/portal-links"), auth=AUTH_BEARER)

    def manageable_communities(self) -> Dict[str, Any]:
        """The caller's communities where they may manage webhooks (the portal's picker)."""
        return self._http.request("GET", "/api/webhooks/manageable-communities", auth=AUTH_BEARER)

    def open_portal_session(self, token: str) -> Dict[str, Any]:
        """Exchanges a portal link's token (once) for a session on that community's webhook routes."""
        return self._http.request(
            "POST", "/api/webhooks/portal-sessions", body={"token": token}, auth=AUTH_NONE
        )


class Client:
    """The Community Platform API.

    ``base_url`` is the service's base address (``https://community.example.com``, a path prefix
    is kept); the client appends ``/api/...`` itself and refuses a base ending in ``/api`` or
    ``/api/v1`` (ValueError). ``api_key`` is sent as X-Api-Key on the routes that take a key;
    ``access_token`` as ``Authorization: Bearer``. With ``refresh_token``, a 401 on a Bearer call
    renews the pair once through ``/api/auth/refresh-token`` and repeats the call; every new pair
    goes to ``on_tokens(pair)``. ``community_id`` (id or slug) is sent as X-Tenant-Id.

    A 429 is retried on any call after its Retry-After (up to ``max_retry_delay`` seconds); a
    network failure only on idempotent calls (GET, PUT, DELETE), after ``retry_base_delay``
    doubled each time; ``max_retries`` (default 2, 0 turns it off) bounds both.
    """

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
        self.auth = Auth(self.http)
        self.community = CommunityRoutes(self.http)
        self.tweets = Tweets(self.http)
        self.tasks = Tasks(self.http)
        self.comments = Comments(self.http)
        self.likes = Likes(self.http)
        self.members = Members(self.http)
        self.customization = Customization(self.http)
        self.embed = Embed(self.http)
        self.admin = Admin(self.http)
        self.webhooks = Webhooks(self.http)

    @property
    def base_url(self) -> str:
        return self.http.base_url

    @property
    def tokens(self) -> Dict[str, Optional[str]]:
        """The tokens the client holds now (after a login or an automatic renewal)."""
        return {"access_token": self.http.access_token, "refresh_token": self.http.refresh_token}
