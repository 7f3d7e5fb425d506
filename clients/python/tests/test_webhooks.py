import base64
import email.message
import json
import os
import secrets as random
import subprocess
import time
import unittest

from community_platform import WebhookVerificationError, verify_webhook
from community_platform.webhooks import sign

NOW = 1_795_521_600  # 2026-11-24T12:00:00Z
EVENT = {
    "id": "msg_01JABCDEF",
    "type": "tweet.created",
    "timestamp": "2026-11-24T12:00:00.000Z",
    "communityId": "4f6d2c1e-0000-4000-8000-000000000001",
    "data": {"tweet": {"id": "t1", "content": "hellö"}},
}
REPO_ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), os.pardir, os.pardir, os.pardir))
STANDARDWEBHOOKS = os.path.join(REPO_ROOT, "node_modules", "standardwebhooks")


def new_secret():
    return "whsec_" + base64.b64encode(random.token_bytes(32)).decode("ascii")


def delivery(secrets, at=NOW, body=None):
    """A delivery as the service sends it: one ``v1,`` signature per live secret."""
    body = json.dumps(EVENT) if body is None else body
    headers = {
        "webhook-id": EVENT["id"],
        "webhook-timestamp": str(at),
        "webhook-signature": " ".join(sign(s, EVENT["id"], at, body) for s in secrets),
    }
    return headers, body


class VerifyWebhook(unittest.TestCase):
    def assertRefused(self, reason, *args, **kwargs):
        with self.assertRaises(WebhookVerificationError) as refused:
            verify_webhook(*args, **kwargs)
        self.assertEqual(refused.exception.reason, reason)

    def test_returns_the_event_when_the_signature_matches(self):
        s = new_secret()
        headers, body = delivery([s])
        self.assertEqual(verify_webhook(headers, body, s, now=NOW), EVENT)

    def test_accepts_when_any_one_live_secret_matches_whichever_order(self):
        old, current, unrelated = new_secret(), new_secret(), new_secret()
        headers, body = delivery([old, current])
        self.assertEqual(verify_webhook(headers, body, [unrelated, current], now=NOW)["id"], EVENT["id"])
        self.assertEqual(verify_webhook(headers, body, [old], now=NOW)["id"], EVENT["id"])
        self.assertRefused("no-matching-signature", headers, body, [unrelated], now=NOW)

    def test_rejects_a_tampered_body_an_altered_id_and_a_missing_header(self):
        s = new_secret()
        headers, body = delivery([s])
        self.assertRefused("no-matching-signature", headers, body.replace("t1", "t2"), s, now=NOW)
        self.assertRefused("no-matching-signature", dict(headers, **{"webhook-id": "msg_other"}), body, s, now=NOW)
        unsigned = {k: v for k, v in headers.items() if k != "webhook-signature"}
        self.assertRefused("missing-header", unsigned, body, s, now=NOW)
        self.assertRefused("invalid-timestamp", dict(headers, **{"webhook-timestamp": "12e5"}), body, s, now=NOW)

    def test_rejects_a_timestamp_outside_the_tolerance_either_way_even_when_correctly_signed(self):
        s = new_secret()
        self.assertRefused("stale-timestamp", *delivery([s], at=NOW - 301), s, now=NOW)
        self.assertRefused("stale-timestamp", *delivery([s], at=NOW + 301), s, now=NOW)
        self.assertEqual(verify_webhook(*delivery([s], at=NOW - 300), s, now=NOW)["id"], EVENT["id"])
        self.assertEqual(verify_webhook(*delivery([s], at=NOW - 301), s, tolerance=600, now=NOW)["id"], EVENT["id"])
        # Without `now`, the clock: a delivery signed an hour ago is refused.
        self.assertRefused("stale-timestamp", *delivery([s], at=int(time.time()) - 3600), s)

    def test_takes_mixed_case_names_a_message_object_and_a_byte_body(self):
        s = new_secret()
        headers, body = delivery([s])
        shouted = {k.upper(): v for k, v in headers.items()}
        self.assertEqual(verify_webhook(shouted, body.encode("utf-8"), [s], now=NOW)["id"], EVENT["id"])
        message = email.message.Message()  # what http.server hands a handler as self.headers
        for name, value in headers.items():
            message[name.title()] = value
        self.assertEqual(verify_webhook(message, bytearray(body.encode("utf-8")), s, now=NOW)["id"], EVENT["id"])

    def test_rejects_a_body_that_is_not_utf8_and_needs_a_secret(self):
        s = new_secret()
        headers, _ = delivery([s])
        self.assertRefused("invalid-body", headers, b"\xff\xfe", s, now=NOW)
        with self.assertRaises(ValueError):
            verify_webhook(headers, "{}", [])


class StandardWebhooksInterop(unittest.TestCase):
    """Signatures made by the npm ``standardwebhooks`` package (the reference implementation the
    service's worker uses), produced now by node from the repository's node_modules."""

    def node(self, script, payload):
        if not os.path.isdir(STANDARDWEBHOOKS):
            self.fail("{} is missing: run `npm install` at the repository root".format(STANDARDWEBHOOKS))
        result = subprocess.run(
            ["node", "-e", script, STANDARDWEBHOOKS, json.dumps(payload)],
            capture_output=True,
            text=True,
            check=True,
            timeout=30,
        )
        return json.loads(result.stdout)

    def test_a_delivery_signed_by_the_npm_package_is_verified(self):
        secret = new_secret()
        body = json.dumps(EVENT, ensure_ascii=False)
        signed = self.node(
            """
            const [pkg, input] = process.argv.slice(1);
            const { Webhook } = require(pkg);
            const { secret, id, body } = JSON.parse(input);
            const at = new Date();
            const version = require(pkg + '/package.json').version;
            const signature = new Webhook(secret).sign(id, at, body);
            console.log(JSON.stringify({ signature, timestamp: Math.floor(at / 1000), version }));
            """,
            {"secret": secret, "id": EVENT["id"], "body": body},
        )
        self.assertRegex(signed["version"], r"^\d+\.\d+\.\d+")
        headers = {
            "webhook-id": EVENT["id"],
            "webhook-timestamp": str(signed["timestamp"]),
            "webhook-signature": signed["signature"],
        }
        self.assertEqual(verify_webhook(headers, body.encode("utf-8"), [new_secret(), secret]), EVENT)
        with self.assertRaises(WebhookVerificationError):
            verify_webhook(headers, body, new_secret())

    def test_a_signature_made_here_is_accepted_by_the_npm_package(self):
        secret = new_secret()
        headers, body = delivery([secret], at=int(time.time()))
        verified = self.node(
            """
            const [pkg, input] = process.argv.slice(1);
            const { Webhook } = require(pkg);
            const { secret, headers, body } = JSON.parse(input);
            console.log(JSON.stringify(new Webhook(secret).verify(body, headers)));
            """,
            {"secret": secret, "headers": headers, "body": body},
        )
        self.assertEqual(verified, EVENT)


if __name__ == "__main__":
    unittest.main()
