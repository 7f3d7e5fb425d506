"""A scripted transport: each call takes the next answer (a Response, an exception to raise, or a
function of the call) and is recorded."""

import json
from typing import Any, Dict, List, Optional
from urllib.parse import parse_qsl, urlsplit

from community_platform import Response


class Call:
    def __init__(self, method: str, url: str, headers: Dict[str, str], body: Optional[bytes]) -> None:
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body

    @property
    def json(self) -> Any:
        return None if self.body is None else json.loads(self.body.decode("utf-8"))

    @property
    def path(self) -> str:
        return urlsplit(self.url).path

    @property
    def query(self) -> List[tuple]:
        return parse_qsl(urlsplit(self.url).query)


class ScriptedTransport:
    def __init__(self, *answers: Any) -> None:
        self.answers = list(answers)
        self.calls: List[Call] = []

    def __call__(self, method, url, headers, body, timeout):
        call = Call(method, url, dict(headers), body)
        self.calls.append(call)
        if not self.answers:
            raise AssertionError("unexpected call {} {}".format(method, url))
        answer = self.answers.pop(0)
        if callable(answer) and not isinstance(answer, Response):
            answer = answer(call)
        if isinstance(answer, BaseException):
            raise answer
        return answer


def answer(status: int, body: Any, headers: Optional[Dict[str, str]] = None) -> Response:
    all_headers = {"content-type": "application/json"}
    all_headers.update({k.lower(): v for k, v in (headers or {}).items()})
    return Response(status, "", all_headers, json.dumps(body).encode("utf-8"))


def ok(data: Any, status: int = 200) -> Response:
    return answer(status, {"success": True, "data": data})


class RecordingSleep:
    """Records the delays instead of waiting."""

    def __init__(self) -> None:
        self.delays: List[float] = []

    def __call__(self, seconds: float) -> None:
        self.delays.append(seconds)
