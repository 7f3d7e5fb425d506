"""The service's OpenAPI document, as committed beside the TypeScript client."""

import json
import os
from typing import Any, Dict, List, Tuple

DOCUMENT = os.path.join(
    os.path.dirname(os.path.abspath(__file__)), os.pardir, os.pardir, "typescript", "openapi.json"
)


def document() -> Dict[str, Any]:
    with open(DOCUMENT, encoding="utf-8") as handle:
        return json.load(handle)


def document_operations() -> List[Tuple[str, str]]:
    methods = {"get", "post", "put", "patch", "delete"}
    return [
        (method.upper(), path)
        for path, item in document()["paths"].items()
        for method in item
        if method in methods
    ]
