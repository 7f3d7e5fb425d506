"""The service's OpenAPI document, as committed beside the TypeScript client."""

import json
import os
from typing import Any, Dict

DOCUMENT = os.path.join(
    os.path.dirname(os.path.abspath(__file__)), os.pardir, os.pardir, "typescript", "openapi.json"
)


def document() -> Dict[str, Any]:
    with open(DOCUMENT, encoding="utf-8") as handle:
        return json.load(handle)


def generator() -> Any:
    """scripts/generate.py, the Python client's generator, as a module."""
    import importlib.util
    import sys

    scripts = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "scripts")
    if scripts not in sys.path:
        sys.path.insert(0, scripts)
    spec = importlib.util.spec_from_file_location("generate", os.path.join(scripts, "generate.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
