"""Standard Webhooks signature checks of the service's deliveries."""

import base64
import binascii
import hashlib
import hmac
import json
import re
import time
from typing import Any, Mapping, Optional, Sequence, Union, cast

from .events import AnyWebhookEvent

DEFAULT_TOLERANCE = 300
_TIMESTAMP = re.compile(r"^\d{1,15}$")
_SECRET_PREFIX = "whsec_"

# Why a delivery was refused (WebhookVerificationError.reason).
MISSING_HEADER = "missing-header"
INVALID_TIMESTAMP = "invalid-timestamp"
STALE_TIMESTAMP = "stale-timestamp"
NO_MATCHING_SIGNATURE = "no-matching-signature"
INVALID_BODY = "invalid-body"


class WebhookVerificationError(ValueError):
    """A delivery that must not be trusted; ``reason`` says why."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason


def _secret_key(secret: str) -> bytes:
    text = secret[len(_SECRET_PREFIX) :] if secret.startswith(_SECRET_PREFIX) else secret
    try:
        return base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError) as cause:
        raise ValueError("A webhook secret is whsec_ followed by base64") from cause


def sign(secret: str, message_id: str, timestamp: int, body: str) -> str:
    """The ``v1,`` signature Standard Webhooks computes: HMAC-SHA256 of ``id.timestamp.body``."""
    content = "{}.{}.{}".format(message_id, timestamp, body).encode("utf-8")
    digest = hmac.new(_secret_key(secret), content, hashlib.sha256).digest()
    return "v1," + base64.b64encode(digest).decode("ascii")


def _header(headers: Any, name: str) -> Optional[str]:
    if isinstance(headers, Mapping):
        for key, value in headers.items():
            if isinstance(key, str) and key.lower() == name:
                if isinstance(value, (list, tuple)):
                    return " ".join(str(v) for v in value)
                return None if value is None else str(value)
        return None
    # http.client.HTTPMessage, email.message.Message, werkzeug Headers...: case-insensitive get.
    value = headers.get(name)
    return None if value is None else str(value)


def verify_webhook(
    headers: Any,
    raw_body: Union[bytes, bytearray, str],
    secrets: Union[str, Sequence[str]],
    tolerance: int = DEFAULT_TOLERANCE,
    now: Optional[float] = None,
) -> AnyWebhookEvent:
    """Checks a delivery's Standard Webhooks signature and returns its event.

    The service signs every delivery with every live secret of the endpoint (one ``v1,`` entry
    each), so during a rotation pass all the secrets you hold: the delivery is accepted when any
    one matches. A ``webhook-timestamp`` more than ``tolerance`` seconds from now, either way, is
    refused (replay protection). ``raw_body`` must be the bytes as received, before any JSON
    parsing. ``headers`` is a mapping (any key case) or an object with a case-insensitive ``get``.
    Raises WebhookVerificationError. The event is typed per ``type`` (``community_platform.events``):
    a type checker narrows ``event["data"]`` on ``event["type"] == "tweet.created"``.
    """
    secret_list = [secrets] if isinstance(secrets, str) else list(secrets)
    if not secret_list:
        raise ValueError("verify_webhook needs at least one secret (whsec_...)")
    message_id = _header(headers, "webhook-id")
    timestamp_header = _header(headers, "webhook-timestamp")
    signature_header = _header(headers, "webhook-signature")
    if not message_id or not timestamp_header or not signature_header:
        raise WebhookVerificationError(
            MISSING_HEADER,
            "The webhook-id, webhook-timestamp and webhook-signature headers are all required",
        )
    if not _TIMESTAMP.match(timestamp_header):
        raise WebhookVerificationError(
            INVALID_TIMESTAMP, 'webhook-timestamp "{}" is not unix seconds'.format(timestamp_header)
        )
    timestamp = int(timestamp_header)
    current = int(time.time() if now is None else now)
    if abs(current - timestamp) > tolerance:
        raise WebhookVerificationError(
            STALE_TIMESTAMP,
            "webhook-timestamp is {} s from now, beyond the {} s tolerance".format(
                current - timestamp, tolerance
            ),
        )
    try:
        body = raw_body if isinstance(raw_body, str) else bytes(raw_body).decode("utf-8")
    except UnicodeDecodeError as cause:
        raise WebhookVerificationError(INVALID_BODY, "The body is not UTF-8") from cause
    given = [entry for entry in signature_header.split(" ") if entry.startswith("v1,")]
    expected = [sign(secret, message_id, timestamp, body) for secret in secret_list]
    # compare_digest takes the same time wherever the strings differ; every pair is compared.
    matched = False
    for signature in given:
        for candidate in expected:
            if hmac.compare_digest(signature.encode("ascii", "replace"), candidate.encode("ascii")):
                matched = True
    if not matched:
        raise WebhookVerificationError(
            NO_MATCHING_SIGNATURE, "No signature matches any of the given secrets"
        )
    try:
        return cast(AnyWebhookEvent, json.loads(body))
    except ValueError as cause:
        raise WebhookVerificationError(INVALID_BODY, "The signed body is not JSON") from cause
