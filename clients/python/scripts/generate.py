"""The Python client's generator (standard library only): from the service's OpenAPI document and the
naming table ``clients/routes.json`` it writes

- ``src/community_platform/routes_generated.py``: one method per operation, grouped as the client
  groups them (``client.tweets.create``), path parameters and the body's required fields positional,
  the other fields keyword arguments;
- ``src/community_platform/types_generated.py``: one TypedDict per schema the operations take or
  answer (``TweetDto`` -> ``Tweet``), which the methods' answers are annotated with; ``types.py``
  re-exports them beside what is written by hand;
- ``src/community_platform/events.py``: one TypedDict per webhook event type, and the list of types.

What no document says (keeping the token pair, paging the delivery log by offset, datetimes as ISO
strings) is written by hand in ``client.py`` on top of these classes.

Usage: python3 scripts/generate.py [--document FILE] [--out FOLDER]
``npm run clients:generate`` at the repository root runs it after writing the document; ``npm run
clients:check`` runs it into a scratch folder and compares.
"""

import argparse
import json
import os
import re
import sys
import textwrap

import generate_events
import generate_types

HERE = os.path.dirname(os.path.abspath(__file__))
PACKAGE = os.path.join(HERE, os.pardir, "src", "community_platform")
DOCUMENT = os.path.join(HERE, os.pardir, os.pardir, "typescript", "openapi.json")
TABLE = os.path.join(HERE, os.pardir, os.pardir, "routes.json")
HTTP_METHODS = ("get", "post", "put", "patch", "delete")


def snake(name):
    return re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", name).lower()


def camel(name):
    head, *rest = name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


def literal(values):
    return "Literal[{}]".format(", ".join(json.dumps(v) for v in values)) if values else None


def resolve(document, schema):
    if schema and "$ref" in schema:
        return document["components"]["schemas"][schema["$ref"].split("/")[-1]]
    return schema


def ref_name(schema):
    return schema["$ref"].split("/")[-1] if schema and "$ref" in schema else None


def success_data(operation):
    """The schema of ``data`` in the documented success envelope (200, else 201, else 202)."""
    responses = operation["responses"]
    answer = responses.get("200") or responses.get("201") or responses.get("202") or {}
    schema = answer.get("content", {}).get("application/json", {}).get("schema", {})
    return schema.get("properties", {}).get("data")


def takes_idempotency_key(operation):
    """Whether an operation takes an ``Idempotency-Key``: the service's document lists the header on each
    operation that does (every write but the anonymous auth routes and the portal-session exchange), so
    the service's own rule decides. The same test as clients/typescript/scripts/routes.mjs."""
    return any(
        p["in"] == "header" and p["name"].lower() == "idempotency-key" for p in operation.get("parameters", [])
    )


def client_operations(document, table):
    """Each documented operation with its place on the client: (group, [name parts]) in snake_case.

    The same rule as clients/typescript/scripts/routes.mjs: the tag names the group, the operationId's
    handler the method, clients/routes.json what differs (``python.names`` first)."""
    python_names = table.get("python", {}).get("names", {})
    operations = []
    for path, item in document["paths"].items():
        for method in HTTP_METHODS:
            operation = item.get(method)
            if operation is None:
                continue
            operation_id = operation["operationId"]
            tag = (operation.get("tags") or [None])[0]
            place = python_names.get(operation_id) or table["names"].get(operation_id)
            if place is None:
                group = table["groups"].get(tag, tag) if tag in table["groups"] else tag
                if group is None:
                    if tag == "health":
                        continue
                    raise SystemExit("{} (tag {!r}) needs a name in clients/routes.json".format(operation_id, tag))
                handler = operation_id.split("_", 1)[1]
                place = "{}.{}".format(group, table["verbs"].get(handler, handler))
            group, *name = [snake(part) for part in place.split(".")]
            operations.append((operation_id, method, path, group, name, operation))
    seen = {}
    for operation_id, _, _, group, name, _ in operations:
        key = ".".join([group] + name)
        if key in seen:
            raise SystemExit("{} and {} are both {}".format(operation_id, seen[key], key))
        seen[key] = operation_id
    return operations


def call(function, args, indent="        "):
    """``return function(args)`` on one line when it fits in 100 columns, else one argument a line."""
    line = "{}return {}({})".format(indent, function, ", ".join(args))
    if len(line) <= 100:
        return [line]
    return ["{}return {}(".format(indent, function)] + ["{}    {},".format(indent, a) for a in args] + [indent + ")"]


def signature(name, args, returns):
    """``def name(args) -> returns:`` on one line when it fits in 100 columns, else one argument a line."""
    line = "    def {}({}) -> {}:".format(name, ", ".join(args), returns)
    if len(line) <= 100:
        return [line]
    return ["    def {}(".format(name)] + ["        {},".format(a) for a in args] + ["    ) -> {}:".format(returns)]


def load_table(path=TABLE):
    with open(path, encoding="utf-8") as handle:
        return json.load(handle)


def body_schema(document, operation):
    """The JSON body's schema, or None when the operation takes none."""
    content = (operation.get("requestBody") or {}).get("content", {}).get("application/json")
    return resolve(document, content["schema"]) if content else None


def positional_fields(table, operation_id, schema):
    """The body fields a method takes as positional arguments: the required ones, unless the table says."""
    return table.get("python", {}).get("positional", {}).get(operation_id, schema.get("required", []))


class RoutesWriter:
    def __init__(self, document, table, typed_dicts):
        self.document = document
        self.table = table
        self.typed_dicts = typed_dicts
        self.imports = set()

    def type_of(self, schema):
        """The annotation for an answer's ``data``: the TypedDict of types_generated.py of its schema."""
        name = ref_name(schema)
        if name in self.typed_dicts:
            self.imports.add(self.typed_dicts[name])
            return self.typed_dicts[name]
        if schema and schema.get("type") == "array":
            return "List[{}]".format(self.type_of(schema.get("items")))
        return "Dict[str, Any]"

    def docstring(self, operation, extra=None, indent="        "):
        text = "\n\n".join(t for t in (operation.get("summary"), operation.get("description"), extra) if t)
        if not text:
            return []
        text = text.replace("\\", "\\\\").replace('"""', '\\"\\"\\"')
        width = 100 - len(indent)
        lines = "\n".join(
            textwrap.fill(paragraph, width, break_on_hyphens=False) if paragraph else paragraph
            for paragraph in text.split("\n")
        ).split("\n")
        if len(lines) == 1:
            return ['{}"""{}"""'.format(indent, lines[0])]
        return ['{}"""{}'.format(indent, lines[0])] + [(indent + line).rstrip() for line in lines[1:]] + [indent + '"""']

    def methods(self, operation_id, method, path, name, operation):
        parameters = operation.get("parameters", [])
        path_params = [p["name"] for p in parameters if p["in"] == "path"]
        has_query = any(p["in"] == "query" for p in parameters)
        body = body_schema(self.document, operation)
        if body is not None and has_query:
            raise SystemExit("{}: a body and query parameters together are not supported".format(operation_id))
        security = operation.get("security") or []
        auth_args = [] if len(security) > 1 else (["auth=AUTH_NONE"] if not security else ["auth=AUTH_BEARER"])
        if not security:
            self.imports.add("AUTH_NONE")
        elif len(security) == 1:
            self.imports.add("AUTH_BEARER")
        if path_params:
            path_expr = '"{}".format({})'.format(
                re.sub(r"\{[^}]+\}", "{}", path), ", ".join("_seg({})".format(snake(p)) for p in path_params)
            )
        else:
            path_expr = '"{}"'.format(path)
        args = ["self"] + [
            "{}: {}".format(snake(p["name"]), literal(p["schema"].get("enum")) or "str")
            for p in parameters
            if p["in"] == "path"
        ]
        data = success_data(operation)
        resolved = resolve(self.document, data) or {}
        method_name = name[-1]
        lines = []
        if any(p["name"] == "page" and p["in"] == "query" for p in parameters) and "hasMore" in resolved.get(
            "properties", {}
        ):
            item = self.type_of(resolved["properties"]["items"].get("items"))
            self.imports.add("Paginated")
            page_name = "page" if method_name == "list" else method_name + "_page"
            lines.append("    def {}({}, **filters: Any) -> Paginated[{}]:".format(method_name, ", ".join(args), item))
            lines += self.docstring(operation, "Every item, ``limit`` at a time: ``for item in …``.")
            lines += call("self._paged", [path_expr, "filters"] + auth_args)
            lines.append("")
            lines.append("    def {}({}, **query: Any) -> Dict[str, Any]:".format(page_name, ", ".join(args)))
            lines += self.docstring({"summary": "One page (``page``, ``limit``)."})
            lines += call("self._http.request", ['"{}"'.format(method.upper()), path_expr, "query=_body(query)"] + auth_args)
            return lines
        options = []
        if body is not None:
            positional = positional_fields(self.table, operation_id, body)
            for field in positional:
                if camel(snake(field)) != field:
                    raise SystemExit("{}: body field {!r} has no snake_case spelling".format(operation_id, field))
            # Required body fields take any JSON value (a list of events, of members), not only strings.
            args += ["{}: Any".format(snake(field)) for field in positional] + ["**fields: Any"]
            fields = "fields" if not positional else "dict(fields, {})".format(
                ", ".join("{0}={0}".format(snake(field)) for field in positional)
            )
            options = ["body=_body({})".format(fields)]
        elif has_query:
            args.append("**query: Any")
            options = ["query=_body(query)"]
        if takes_idempotency_key(operation):
            if body is not None and "idempotencyKey" in body.get("properties", {}):
                raise SystemExit("{}: a body field idempotencyKey hides the call's key".format(operation_id))
            # Keyword-only, before the body's or query's keyword arguments, so it never becomes one of them.
            keyword = ["*", "idempotency_key: Optional[str] = None"]
            if args[-1].startswith("**"):
                args[-1:-1] = keyword
            else:
                args += keyword
            options += ["idempotent=True", "idempotency_key=idempotency_key"]
        lines += signature(method_name, args, self.type_of(data))
        lines += self.docstring(operation)
        lines += call("self._http.request", ['"{}"'.format(method.upper()), path_expr] + options + auth_args)
        return lines

    def render(self):
        classes = {}  # class name -> (lines, children: {attribute: class name})
        order = []

        def group_class(parts):
            name = "".join(part.title().replace("_", "") for part in parts) + "Routes"
            if name not in classes:
                classes[name] = ([], {})
                order.append((parts, name))
                if len(parts) > 1:
                    group_class(parts[:-1])[1][parts[-1]] = name
            return classes[name]

        for operation_id, method, path, group, name, operation in client_operations(self.document, self.table):
            lines, _ = group_class([group] + name[:-1])
            if lines:
                lines.append("")
            lines += self.methods(operation_id, method, path, name, operation)

        blocks = []
        for parts, class_name in order:
            lines, children = classes[class_name]
            body = []
            if children:
                body.append("    def __init__(self, http: HttpClient) -> None:")
                body.append("        super().__init__(http)")
                body += ["        self.{} = {}(http)".format(attr, child) for attr, child in children.items()]
                body.append("")
            blocks.append("class {}(_Group):\n{}".format(class_name, "\n".join(body + lines)))
        top = [(parts[0], name) for parts, name in order if len(parts) == 1]
        root = [
            "class Routes:",
            '    """Every group of routes, as attributes. A subclass may put its own class for a group in',
            '    ``_group_classes`` (client.py does, for what the document cannot say)."""',
            "",
            "    _group_classes: Dict[str, Callable[[HttpClient], _Group]] = {}",
            "",
            "    def __init__(self, http: HttpClient) -> None:",
        ] + ['        self.{0} = self._group(http, "{0}", {1})'.format(attr, name) for attr, name in top] + [
            "",
            "    def _group(self, http: HttpClient, name: str, generated: Type[G]) -> G:",
            "        return cast(G, self._group_classes.get(name, generated)(http))",
        ]
        types_import = sorted(n for n in self.imports if n not in ("AUTH_NONE", "AUTH_BEARER", "Paginated"))
        auth_import = sorted(n for n in self.imports if n.startswith("AUTH_"))
        header = [
            '"""Every operation of the service\'s OpenAPI document, one method each, grouped as the client groups',
            "them. Generated by scripts/generate.py from ../typescript/openapi.json and ../routes.json: do not edit;",
            '``npm run clients:generate`` at the repository root rewrites it."""',
            "",
            "from typing import Any, Callable, Dict, List, Literal, Optional, Type, TypeVar, cast",
            "",
            "from ._group import _body, _Group, _seg",
            "from ._http import {}HttpClient".format("".join(n + ", " for n in auth_import)),
            "from .pagination import Paginated",
            "from .types_generated import (",
        ] + ["    {},".format(name) for name in types_import] + [
            ")",
            "",
            'G = TypeVar("G", bound=_Group)',
        ]
        return "\n".join(header) + "\n\n\n" + "\n\n\n".join(blocks + ["\n".join(root)]) + "\n"


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--document", default=DOCUMENT)
    parser.add_argument("--out", default=PACKAGE)
    options = parser.parse_args(argv)
    with open(options.document, encoding="utf-8") as handle:
        document = json.load(handle)
    table = load_table()
    types_text, typed_dicts = generate_types.generate(document, table)
    outputs = {
        "types_generated.py": types_text,
        "routes_generated.py": RoutesWriter(document, table, typed_dicts).render(),
        "events.py": generate_events.generate(document),
    }
    for name, text in outputs.items():
        with open(os.path.join(options.out, name), "w", encoding="utf-8") as handle:
            handle.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
