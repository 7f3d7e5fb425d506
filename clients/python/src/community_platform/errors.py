"""The one exception every failed call raises."""

import email.utils
import time
from typing import Any, List, Mapping, Optional

from .types import ErrorDetail

# Codes of failures that happen before the service answers.
NETWORK_ERROR = "NETWORK_ERROR"
INVALID_RESPONSE = "INVALID_RESPONSE"


class ApiError(Exception):
    """A failed call: an error answer of the service (``status`` is its HTTP status, ``code`` its
    error code) or a failure before any answer (``status`` 0, ``code`` ``NETWORK_ERROR``, the
    original exception as ``__cause__``).

    Attributes:
        status: HTTP status; 0 when no answer came.
        code: the service's error code (docs/api.md#http-contract: ``UNAUTHORIZED``,
            ``FEATURE_NOT_AVAILABLE``, ``RATE_LIMITED``, ...), ``NETWORK_ERROR`` or ``INVALID_RESPONSE``.
        feature_key: the plan feature the community lacks (``FEATURE_NOT_AVAILABLE``).
        details: one entry per bad field (``VALIDATION_ERROR``).
        retry_after: seconds to wait before trying again (``RATE_LIMITED``), from the body or the
            ``Retry-After`` header.
        request_id: the ``X-Request-Id`` of the answer: quote it when asking an operator.
        body: the parsed error body as received (``WEBHOOK_TEST_FAILED`` carries the logged attempt
            in ``body["data"]``).
        idempotency_key: the Idempotency-Key the call sent (routes that take one). After a
            ``NETWORK_ERROR`` or an ``IDEMPOTENCY_KEY_IN_USE`` the write may have happened: call again
            with ``idempotency_key=`` this key to get its answer instead of a second write.
    """

    def __init__(
        self,
        message: str,
        *,
        status: int,
        code: str,
        feature_key: Optional[str] = None,
        details: Optional[List[ErrorDetail]] = None,
        retry_after: Optional[float] = None,
        request_id: Optional[str] = None,
        body: Any = None,
        idempotency_key: Optional[str] = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.status = status
        self.code = code
        self.feature_key = feature_key
        self.details = details
        self.retry_after = retry_after
        self.request_id = request_id
        self.body = body
        self.idempotency_key = idempotency_key

    def __repr__(self) -> str:
        return "ApiError(status={!r}, code={!r}, message={!r})".format(self.status, self.code, self.message)


def parse_retry_after(value: Optional[str], now: Optional[float] = None) -> Optional[float]:
    """Seconds from a Retry-After header: delta-seconds or an HTTP date."""
    if value is None or value.strip() == "":
        return None
    text = value.strip()
    try:
        seconds = float(text)
        return seconds if seconds >= 0 else None
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(text).timestamp()
    except (TypeError, ValueError, IndexError):
        return None
    return max(0.0, when - (time.time() if now is None else now))


def error_from_response(
    status: int, reason: str, headers: Mapping[str, str], body: Any, idempotency_key: Optional[str] = None
) -> ApiError:
    """The error for a non-2xx answer, from the error body ``{success: false, error, code, ...}``
    (docs/api.md#http-contract)."""
    fields = body if isinstance(body, dict) else {}
    retry_after = fields.get("retryAfter")
    if isinstance(retry_after, bool) or not isinstance(retry_after, (int, float)):
        retry_after = parse_retry_after(headers.get("retry-after"))
    given_code = fields.get("code")
    code = given_code if isinstance(given_code, str) else "HTTP_{}".format(status)
    message = fields.get("error")
    if not isinstance(message, str):
        message = "HTTP {} {}".format(status, reason).strip()
    feature_key = fields.get("featureKey")
    details = fields.get("details")
    return ApiError(
        message,
        status=status,
        code=code,
        feature_key=feature_key if isinstance(feature_key, str) else None,
        details=details if isinstance(details, list) else None,
        retry_after=retry_after,
        request_id=headers.get("x-request-id"),
        body=body,
        idempotency_key=idempotency_key,
    )
