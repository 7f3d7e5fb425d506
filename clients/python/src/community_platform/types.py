"""The main resources as the service answers them (JSON keys as sent, camelCase).

These mirror the schemas of the service's OpenAPI document (``clients/typescript/openapi.json``);
``tests/test_types.py`` fails when a schema gains or loses a field these do not follow.
"""

from typing import Any, Dict, List, Literal, Optional, TypedDict

from .events import WebhookEventType  # generated from the document's event schemas

Plan = Literal["FREE", "PRO", "ENTERPRISE"]
MemberRole = Literal["OWNER", "ADMIN", "MODERATOR", "MEMBER"]
ParentType = Literal["tweets", "tasks"]
DeliveryStatus = Literal["PENDING", "SUCCESS", "FAILED"]
TaskStatus = Literal["OPEN", "IN_PROGRESS", "DONE"]


class ErrorDetail(TypedDict, total=False):
    field: str
    message: str


class TokenUser(TypedDict):
    id: str
    email: str
    name: str


class TokenPair(TypedDict):
    tokenType: Literal["Bearer"]
    accessToken: str
    refreshToken: str
    expiresIn: float
    user: TokenUser


class Community(TypedDict):
    id: str
    slug: str
    name: str
    plan: Plan
    customDomain: Optional[str]
    createdAt: str


class SdkCommunity(TypedDict):
    id: str
    slug: str
    name: str
    plan: Plan
    customDomain: Optional[str]
    customDomainPending: Optional[Dict[str, Any]]
    visibility: Literal["PUBLIC", "PRIVATE"]
    description: str
    allowMemberPosts: bool
    branding: Dict[str, Any]
    createdAt: str
    updatedAt: str


class Tweet(TypedDict):
    id: str
    communityId: str
    authorId: str
    content: str
    likeCount: int
    commentCount: int
    createdAt: str
    updatedAt: str


class Task(TypedDict):
    id: str
    communityId: str
    title: str
    description: str
    status: TaskStatus
    dueAt: Optional[str]
    createdById: str
    likeCount: int
    commentCount: int
    createdAt: str
    updatedAt: str


class Comment(TypedDict):
    id: str
    communityId: str
    parentType: ParentType
    parentId: str
    authorId: str
    content: str
    createdAt: str


class Member(TypedDict):
    id: str
    userId: str
    email: str
    name: str
    role: MemberRole
    joinedAt: str


class Advertisement(TypedDict):
    id: str
    title: str
    imageUrl: str
    targetUrl: str
    placement: str
    startsAt: str
    endsAt: str
    isActive: bool
    createdAt: str
    updatedAt: str


class ApiKey(TypedDict):
    id: str
    name: str
    communityId: str
    keyPrefix: str
    scopes: List[str]
    lastUsedAt: Optional[str]
    revokedAt: Optional[str]
    createdAt: str


class CreatedApiKey(ApiKey):
    key: str
    """The key itself (``cpk_...``), shown in this answer only."""


class Webhook(TypedDict):
    id: str
    communityId: str
    url: str
    description: str
    events: List[str]
    isActive: bool
    consecutiveFailures: int
    disabledAt: Optional[str]
    failingSince: Optional[str]
    lastSuccessAt: Optional[str]
    createdAt: str
    updatedAt: str


class CreatedWebhook(Webhook):
    secret: str
    """The signing secret (``whsec_...``), shown in this answer only."""


class RotatedSecret(TypedDict):
    endpointId: str
    secret: str
    rotatedAt: str
    previousSecretsExpireAt: str


class Delivery(TypedDict):
    id: str
    endpointId: str
    messageId: str
    eventType: str
    attempt: int
    status: DeliveryStatus
    responseStatus: Optional[int]
    responseBody: Optional[str]
    durationMs: Optional[float]
    error: Optional[str]
    nextAttemptAt: Optional[str]
    requestId: Optional[str]
    payload: Optional[Dict[str, Any]]
    createdAt: str
    updatedAt: str


class RecoverResult(TypedDict):
    queued: int
    #: events still to recover: one call queues at most WEBHOOK_RECOVER_MAX; call again for the rest
    remaining: int


class WebhookEvent(TypedDict):
    """The body of every delivery (its ``webhook-id`` header is ``id``)."""

    id: str
    type: WebhookEventType
    timestamp: str
    communityId: str
    data: Dict[str, Any]


class Page(TypedDict):
    """A page of an /api/sdk list (``page``/``limit``)."""

    items: List[Any]
    page: int
    limit: int
    total: int
    hasMore: bool


class DeliveryPage(TypedDict):
    """A page of the delivery log (``limit``/``offset``)."""

    items: List[Delivery]
    limit: int
    offset: int
    total: int
    hasMore: bool


__all__ = [
    "Advertisement",
    "ApiKey",
    "Comment",
    "Community",
    "CreatedApiKey",
    "CreatedWebhook",
    "Delivery",
    "DeliveryPage",
    "DeliveryStatus",
    "ErrorDetail",
    "Member",
    "MemberRole",
    "Page",
    "ParentType",
    "Plan",
    "RecoverResult",
    "RotatedSecret",
    "SdkCommunity",
    "Task",
    "TaskStatus",
    "TokenPair",
    "TokenUser",
    "Tweet",
    "Webhook",
    "WebhookEvent",
    "WebhookEventType",
]
