"""The transport: base address, authentication, JSON envelope, errors, retries and token renewal."""

import http.client
import json
import math
import re
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from dataclasses import dataclass
from typing import Any, Callable, Dict, Mapping, Optional, Tuple

from .errors import INVALID_RESPONSE, NETWORK_ERROR, ApiError, error_from_response
from .types import TokenPair

# Methods that may be sent again after a network error without a key: doing them twice does them once.
IDEMPOTENT = frozenset(["GET", "HEAD", "PUT", "DELETE", "OPTIONS"])
KEY_IN_USE = "IDEMPOTENCY_KEY_IN_USE"
_API_SUFFIX = re.compile(r"/api(/v\d+)?$", re.IGNORECASE)

# Which credential a route takes: "any" prefers the API key, "bearer" routes take only a login token.
AUTH_ANY = "any"
AUTH_BEARER = "bearer"
AUTH_NONE = "none"


@dataclass(frozen=True)
class Response:
    """What a transport hands back: status, reason, lower-cased headers and the raw body."""

    status: int
    reason: str
    headers: Mapping[str, str]
    body: bytes


# (method, url, headers, body, timeout) -> Response; raises OSError (urllib.error.URLError,
# socket.timeout, ConnectionError...) when no answer came.
Transport = Callable[[str, str, Dict[str, str], Optional[bytes], float], Response]


@dataclass(frozen=True)
class RetryInfo:
    """What ``on_retry`` sees before each retry."""

    method: str
    path: str
    retry: int
    """1 for the first retry."""
    delay: float
    """Seconds the client waits before it."""
    reason: str
    """``"rate-limited"`` (a 429), ``"network"`` (no answer came) or ``"key-in-use"`` (a 409
    IDEMPOTENCY_KEY_IN_USE: the service still runs the first request with this call's key)."""
    error: ApiError
    idempotency_key: Optional[str] = None
    """The call's Idempotency-Key, on the routes that take one: every retry sends it again."""


def new_idempotency_key() -> str:
    """A fresh Idempotency-Key: a random (version 4) UUID, from ``os.urandom``."""
    return str(uuid.uuid4())


def urllib_transport(
    method: str, url: str, headers: Dict[str, str], body: Optional[bytes], timeout: float
) -> Response:
    """The default transport, on urllib.request. An error status is an answer, not an exception."""
    request = urllib.request.Request(url, data=body, headers=headers, method=method)
    try:
        with urllib.request.urlopen(request, timeout=timeout) as answer:
            return Response(
                answer.status,
                answer.reason or "",
                {k.lower(): v for k, v in answer.headers.items()},
                answer.read(),
            )
    except urllib.error.HTTPError as answer:
        with answer:
            return Response(
                answer.code,
                str(answer.reason or ""),
                {k.lower(): v for k, v in (answer.headers or {}).items()},
                answer.read(),
            )


def normalize_base_url(base_url: str) -> str:
    """The base address without trailing slashes; refuses one the client would turn into unmatched paths."""
    parts = urllib.parse.urlsplit(base_url if isinstance(base_url, str) else "")
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ValueError(
            "base_url must be an absolute http(s) address such as https://community.example.com, "
            'got "{}"'.format(base_url)
        )
    path = parts.path.rstrip("/")
    suffix = _API_SUFFIX.search(path)
    if suffix:
        origin = "{}://{}".format(parts.scheme, parts.netloc)
        raise ValueError(
            'base_url "{}" ends in {}: give the service\'s base address without it (for example "{}{}"). '
            "The client appends /api/ itself, and the service has no versioned routes: /api/v1/... "
            "paths match nothing and answer 400 or 401.".format(
                base_url, suffix.group(0), origin, path[: suffix.start()]
            )
        )
    return "{}://{}{}".format(parts.scheme, parts.netloc, path)


class HttpClient:
    """Sends one call, with the retry rule and the renewal on 401; answers the envelope's ``data``."""

    def __init__(
        self,
        base_url: str,
        *,
        api_key: Optional[str] = None,
        access_token: Optional[str] = None,
        refresh_token: Optional[str] = None,
        on_tokens: Optional[Callable[[TokenPair], None]] = None,
        community_id: Optional[str] = None,
        max_retries: int = 2,
        retry_base_delay: float = 0.5,
        max_retry_delay: float = 60.0,
        timeout: float = 30.0,
        on_retry: Optional[Callable[[RetryInfo], None]] = None,
        transport: Optional[Transport] = None,
        sleep: Optional[Callable[[float], None]] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> None:
        self.base_url = normalize_base_url(base_url)
        self.api_key = api_key
        self.access_token = access_token
        self.refresh_token = refresh_token
        self.on_tokens = on_tokens
        self.community_id = community_id
        self.max_retries = max(0, int(max_retries))
        self.retry_base_delay = retry_base_delay
        self.max_retry_delay = max_retry_delay
        self.timeout = timeout
        self.on_retry = on_retry
        self.transport = transport or urllib_transport
        self.sleep = sleep or time.sleep
        self.extra_headers = dict(headers or {})
        # A refresh token is single use: threads that meet a 401 together share one renewal.
        self._renewal_lock = threading.Lock()

    def set_tokens(self, pair: TokenPair) -> None:
        self.access_token = pair["accessToken"]
        self.refresh_token = pair["refreshToken"]
        if self.on_tokens is not None:
            self.on_tokens(pair)

    def request(
        self,
        method: str,
        path: str,
        *,
        query: Optional[Mapping[str, Any]] = None,
        body: Any = None,
        auth: str = AUTH_ANY,
        idempotent: bool = False,
        idempotency_key: Optional[str] = None,
    ) -> Any:
        """One call. ``idempotent``: the route takes an Idempotency-Key (its operation in the service's
        document lists the header; the generated methods say so): the call sends ``idempotency_key`` or a
        fresh one, the same on each of its retries, and a network error or a 409
        IDEMPOTENCY_KEY_IN_USE is retried whatever the method."""
        url = self._url(path, query)
        payload = None if body is None else json.dumps(body, separators=(",", ":")).encode("utf-8")
        # One key per call, chosen before the first attempt: every retry below (network, 409, 429,
        # renewal on 401) sends the same one, so the service runs the write at most once and replays it.
        key = (idempotency_key if idempotency_key is not None else new_idempotency_key()) if idempotent else None
        # Without a key only a method that is idempotent by itself may be sent again when no answer
        # came: the service may have done a POST whose answer was lost.
        retry_network = key is not None or method in IDEMPOTENT
        retries = 0
        renewed = False
        while True:
            headers, bearer = self._headers(auth, payload is not None)
            if key is not None:
                headers["idempotency-key"] = key
            try:
                answer = self.transport(method, url, headers, payload, self.timeout)
            except (OSError, http.client.HTTPException) as cause:
                # OSError covers URLError, timeouts and refused connections; HTTPException a
                # connection dropped mid-answer.
                error = ApiError(
                    "{} {} failed before the service answered: {}".format(method, path, cause),
                    status=0,
                    code=NETWORK_ERROR,
                    idempotency_key=key,
                )
                error.__cause__ = cause
                # Refused, cut mid-way, timed out or its answer lost: with a key a retry is safe, the
                # service replays a finished write and answers 409 (retried below) while it still runs.
                if retry_network and retries < self.max_retries:
                    retries += 1
                    delay = self.retry_base_delay * 2 ** (retries - 1)
                    self._retrying(RetryInfo(method, path, retries, delay, "network", error, key))
                    continue
                raise error from cause
            parsed = _read_body(answer)
            if 200 <= answer.status < 300:
                if isinstance(parsed, dict) and "data" in parsed:
                    return parsed["data"]
                return parsed
            error = error_from_response(answer.status, answer.reason, answer.headers, parsed, key)
            # A 429 is refused before the service does anything, so any method may be sent again; a 409
            # IDEMPOTENCY_KEY_IN_USE says the first request with this key still runs: its answer will be
            # replayed once it is done.
            reason = None
            if answer.status == 429:
                reason = "rate-limited"
            elif answer.status == 409 and error.code == KEY_IN_USE and key is not None:
                reason = "key-in-use"
            if reason is not None and retries < self.max_retries:
                seconds = error.retry_after if error.retry_after is not None else 1
                delay = math.ceil(seconds * 1000) / 1000  # whole milliseconds, as the TS client waits
                if delay <= self.max_retry_delay:
                    retries += 1
                    self._retrying(RetryInfo(method, path, retries, delay, reason, error, key))
                    continue
            if answer.status == 401 and bearer is not None and not renewed and self.refresh_token:
                renewed = True
                self.renew(expired=bearer)
                continue
            raise error

    def renew(self, expired: Optional[str] = None) -> None:
        """Trades the refresh token for a new pair (POST /api/auth/refresh-token), handed to on_tokens.

        With ``expired`` (the access token a 401 refused), a renewal another thread finished
        meanwhile is used instead of trading the refresh token a second time.
        """
        with self._renewal_lock:
            if expired is not None and self.access_token != expired:
                return
            pair = self.request(
                "POST",
                "/api/auth/refresh-token",
                body={"refreshToken": self.refresh_token},
                auth=AUTH_NONE,
            )
            self.set_tokens(pair)

    def _retrying(self, info: RetryInfo) -> None:
        if self.on_retry is not None:
            self.on_retry(info)
        self.sleep(info.delay)

    def _url(self, path: str, query: Optional[Mapping[str, Any]]) -> str:
        pairs = []
        for name, value in (query or {}).items():
            if value is None:
                continue
            if isinstance(value, bool):
                value = "true" if value else "false"
            pairs.append((name, str(value)))
        search = urllib.parse.urlencode(pairs)
        return "{}{}{}".format(self.base_url, path, "?" + search if search else "")

    def _headers(self, auth: str, has_body: bool) -> Tuple[Dict[str, str], Optional[str]]:
        headers = {"accept": "application/json"}
        headers.update(self.extra_headers)
        if has_body:
            headers["content-type"] = "application/json"
        if self.community_id:
            headers["x-tenant-id"] = self.community_id
        bearer = None
        if auth == AUTH_ANY and self.api_key:
            headers["x-api-key"] = self.api_key
        elif auth != AUTH_NONE and self.access_token:
            headers["authorization"] = "Bearer " + self.access_token
            bearer = self.access_token
        return headers, bearer


def _read_body(answer: Response) -> Any:
    if not answer.body:
        return None
    try:
        return json.loads(answer.body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as cause:
        if not 200 <= answer.status < 300:
            return {"error": answer.body[:500].decode("utf-8", "replace")}
        raise ApiError(
            "The service answered {} with a body that is not JSON".format(answer.status),
            status=answer.status,
            code=INVALID_RESPONSE,
            request_id=answer.headers.get("x-request-id"),
        ) from cause
