import unittest

from community_platform import types

from .openapi import document

# Each TypedDict and the schema of the service's document it mirrors.
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


class GeneratedFilesFollowTheDocument(unittest.TestCase):
    def test_routes_and_events_are_what_the_generator_makes_of_the_committed_document(self):
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
            for name in ("routes_generated.py", "events.py"):
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
