"""What every group of routes shares: the transport, path segments, bodies and lists. The generated
groups (routes_generated.py) and the hand-written ones (client.py) stand on it."""

import urllib.parse
from typing import Any, Dict, Mapping

from ._http import AUTH_ANY, HttpClient
from .pagination import Paginated


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


class _Group:
    def __init__(self, http: HttpClient) -> None:
        self._http = http

    def _paged(self, path: str, query: Mapping[str, Any], auth: str = AUTH_ANY) -> Paginated[Any]:
        """An /api/sdk list, walked page by page (``page``, ``limit``)."""
        params = _body(query)
        return Paginated(
            lambda index, _offset: self._http.request(
                "GET", path, query=dict(params, page=index + 1), auth=auth
            )
        )
