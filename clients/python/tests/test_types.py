import unittest
from typing import Any, Dict

from community_platform import types

from .openapi import document, generator

# The public TypedDicts and the schema each is generated from (types_generated.py names them after it).
MIRRORS = {
    types.TokenPair: "TokenPairDto",
    types.TokenUser: "TokenUserDto",
    types.Community: "CommunityDto",
    types.SdkCommunity: "SdkCommunityDto",
    types.Tweet: "TweetDto",
    types.Task: "TaskDto",
    types.Comment: "CommentDto",
    types.Member: "MemberDto",
    types.Advertisement: "AdvertisementDto",
    types.ApiKey: "ApiKeyDto",
    types.CreatedApiKey: "CreatedApiKeyDto",
    types.Webhook: "WebhookDto",
    types.CreatedWebhook: "CreatedWebhookDto",
    types.RotatedSecret: "RotatedSecretDto",
    types.Delivery: "DeliveryDto",
    types.DeliveryPage: "DeliveryPageDto",
    types.RecoverResult: "RecoverResultDto",
}


class TypesFollowTheDocument(unittest.TestCase):
    def test_each_typed_dict_has_the_fields_of_its_schema(self):
        schemas = document()["components"]["schemas"]
        for typed, name in MIRRORS.items():
            with self.subTest(schema=name):
                self.assertEqual(sorted(typed.__annotations__), sorted(schemas[name]["properties"]))

    def test_the_event_types_are_the_catalog_and_the_test_event(self):
        schemas = document()["components"]["schemas"]
        catalog = {name[len("WebhookEvent.") :] for name in schemas if name.startswith("WebhookEvent.")}
        self.assertEqual(set(types.WebhookEventType.__args__), catalog)
        event_schema = schemas["WebhookEvent.tweet.created"]
        self.assertEqual(sorted(types.WebhookEvent.__annotations__), sorted(event_schema["properties"]))

    def test_error_codes_the_document_lists_are_the_ones_api_error_documents(self):
        codes = document()["components"]["schemas"]["ErrorBodyDto"]["properties"]["code"]["enum"]
        self.assertIn("FEATURE_NOT_AVAILABLE", codes)
        self.assertIn("RATE_LIMITED", codes)


# What users import from community_platform.types: these names stay, generated or written by hand.
PUBLIC_NAMES = [
    "Advertisement", "ApiKey", "Comment", "Community", "CreatedApiKey", "CreatedWebhook", "Delivery",
    "DeliveryPage", "DeliveryStatus", "ErrorDetail", "Member", "MemberRole", "Page", "ParentType", "Plan",
    "RecoverResult", "RotatedSecret", "SdkCommunity", "Task", "TaskStatus", "TokenPair", "TokenUser", "Tweet",
    "Webhook", "WebhookEvent", "WebhookEventType",
]  # fmt: skip


class GeneratedTypes(unittest.TestCase):
    def test_the_names_users_import_stay(self):
        import community_platform

        for name in PUBLIC_NAMES:
            with self.subTest(name=name):
                self.assertIn(name, types.__all__)
                self.assertIs(getattr(community_platform, name), getattr(types, name))

    def test_one_typed_dict_per_schema_the_routes_use_with_its_required_and_optional_keys(self):
        from community_platform import types_generated

        doc = document()
        schemas = doc["components"]["schemas"]
        used = generator().generate_types.used_schemas(doc)
        self.assertIn("LoginDto", used)  # a request body
        self.assertIn("TxtRecordDto", used)  # only referred to by another schema
        self.assertFalse([name for name in used if name.startswith("WebhookEvent.")])
        self.assertIn("WebhookFilter", used)  # an open object: a dict of any keys
        for name in used:
            with self.subTest(schema=name):
                typed = getattr(types_generated, name[: -len("Dto")] if name.endswith("Dto") else name)
                if generator().generate_types.is_open_object(schemas[name]):
                    self.assertEqual(typed, Dict[str, Any])
                    continue
                required = set(schemas[name].get("required", []))
                self.assertEqual(typed.__required_keys__, required)
                self.assertEqual(typed.__optional_keys__, set(schemas[name]["properties"]) - required)

    def test_keys_that_are_no_python_names_keep_their_spelling(self):
        from community_platform import types_generated as g

        # the filter's operators: the functional TypedDict form, every key optional
        self.assertTrue(g.WebhookFilterOperators.__optional_keys__ >= {"$eq", "$in", "$startsWith"})
        self.assertEqual(g.WebhookFilterOperators.__annotations__["$exists"], bool)
        self.assertIn("WebhookFilter", types.__all__)

    def test_openapi_types_map_to_typing(self):
        from typing import Any, Dict, List, Literal, Optional

        from community_platform import types_generated as g

        hints = g.Delivery.__annotations__
        self.assertEqual(hints["id"], str)
        self.assertEqual(hints["durationMs"], Optional[float])  # number, nullable
        self.assertEqual(hints["payload"], Optional[Dict[str, Any]])  # an object without properties
        self.assertEqual(hints["status"], Literal["PENDING", "SUCCESS", "FAILED"])
        self.assertIs(hints["status"], types.DeliveryStatus)  # the enum named in routes.json
        self.assertEqual(g.DeliveryPage.__annotations__["items"], List[g.Delivery])  # array of a $ref
        self.assertEqual(g.TokenPair.__annotations__["user"], g.TokenUser)  # $ref
        self.assertEqual(g.Settings.__annotations__["customDomainPending"], Optional[g.CustomDomainPending])
        self.assertEqual(g.HealthStatus.__annotations__["details"], Dict[str, g.HealthIndicator])
        self.assertEqual(g.Identity.__annotations__["user"].__annotations__["isPlatformAdmin"], bool)
        self.assertEqual(g.SidebarItem.__annotations__["label"], str)

    def test_the_named_enums_are_the_values_of_the_schema_property_routes_json_names(self):
        import json
        import os
        import typing

        from community_platform import types_generated

        here = os.path.dirname(os.path.abspath(__file__))
        with open(os.path.join(here, os.pardir, os.pardir, "routes.json"), encoding="utf-8") as handle:
            enums = {k: v for k, v in json.load(handle)["python"]["enums"].items() if not k.startswith("$")}
        schemas = document()["components"]["schemas"]
        self.assertEqual(set(enums), {"Plan", "MemberRole", "ParentType", "TaskStatus", "DeliveryStatus"})
        for alias, where in enums.items():
            schema, prop = where.split(".")
            with self.subTest(enum=alias):
                named = getattr(types_generated, alias)
                self.assertEqual(typing.get_args(named), tuple(schemas[schema]["properties"][prop]["enum"]))
                self.assertIs(getattr(types_generated, schema[: -len("Dto")]).__annotations__[prop], named)

    def test_the_routes_answer_the_generated_typed_dicts(self):
        import typing

        from community_platform import routes_generated as r
        from community_platform import types_generated as g

        self.assertIs(typing.get_type_hints(r.TweetsRoutes.create)["return"], g.Tweet)
        self.assertIs(typing.get_type_hints(r.AuthRoutes.logout)["return"], g.Logout)
        self.assertIs(typing.get_type_hints(r.WebhooksRoutes.event_types)["return"], g.EventTypes)


class GeneratedFilesFollowTheDocument(unittest.TestCase):
    def test_types_routes_and_events_are_what_the_generator_makes_of_the_committed_document(self):
        import os
        import subprocess
        import sys
        import tempfile

        here = os.path.dirname(os.path.abspath(__file__))
        script = os.path.join(here, os.pardir, "scripts", "generate.py")
        package = os.path.join(here, os.pardir, "src", "community_platform")
        with tempfile.TemporaryDirectory() as out:
            result = subprocess.run([sys.executable, script, "--out", out], capture_output=True, text=True)
            self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
            for name in ("types_generated.py", "routes_generated.py", "events.py"):
                with self.subTest(file=name), open(os.path.join(out, name), encoding="utf-8") as fresh, open(
                    os.path.join(package, name), encoding="utf-8"
                ) as committed:
                    self.assertTrue(
                        fresh.read() == committed.read(),
                        "{} is out of date: run `npm run clients:generate` at the repository root".format(name),
                    )

    def test_one_typed_event_per_type_with_its_data(self):
        from community_platform import events

        # One list of event types: types.py takes events.py's.
        self.assertIs(types.WebhookEventType, events.WebhookEventType)
        self.assertEqual(events.EVENT_TYPES, types.WebhookEventType.__args__)
        members = events.AnyWebhookEvent.__args__
        self.assertEqual(
            sorted(m.__annotations__["type"].__args__[0] for m in members), sorted(events.EVENT_TYPES)
        )
        tweet = events.TweetCreatedEvent.__annotations__["data"].__annotations__["tweet"]
        self.assertEqual(tweet.__annotations__["likeCount"], int)
        item = events.CustomizationUpdatedEventDataVariant1SidebarItemsItem
        self.assertEqual((item.__required_keys__, item.__optional_keys__), ({"label", "url"}, {"icon"}))


class RunsOnPython39(unittest.TestCase):
    def test_the_package_parses_as_python_3_9(self):
        import ast
        import os

        import community_platform

        folder = os.path.dirname(community_platform.__file__)
        for name in sorted(os.listdir(folder)):
            if name.endswith(".py"):
                with self.subTest(module=name), open(os.path.join(folder, name), encoding="utf-8") as f:
                    ast.parse(f.read(), name, feature_version=(3, 9))
