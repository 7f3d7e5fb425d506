"""The Python client against the real API and worker, started by ../../test-against-service.mjs
(which sets CP_BASE_URL and a platform admin's login, and runs this with the package installed in
a throw-away venv). The tests run in order (test_01 …) and build on each other."""

import base64
import http.server
import os
import threading
import time
import unittest
import urllib.error
import urllib.request

import community_platform
from community_platform import ApiError, Client, WebhookVerificationError, verify_webhook

BASE_URL = os.environ.get("CP_BASE_URL")
EMAIL = os.environ.get("CP_ADMIN_EMAIL")
PASSWORD = os.environ.get("CP_ADMIN_PASSWORD")
if not (BASE_URL and EMAIL and PASSWORD):
    raise RuntimeError(
        "Run through clients/test-against-service.mjs: CP_BASE_URL, CP_ADMIN_EMAIL, CP_ADMIN_PASSWORD are unset"
    )
DELIVERY_TIMEOUT = 30.0
RUN_TAG = "py{}".format(int(time.time() * 1000))


class Receiver:
    """A webhook receiver on 127.0.0.1 that keeps every request's headers and raw body. A path
    marked failing answers 500 until it is marked healthy again."""

    def __init__(self) -> None:
        self.requests = []
        self.failing = set()
        self.changed = threading.Condition()
        receiver = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):
                raw = self.rfile.read(int(self.headers.get("content-length", 0)))
                status = 500 if self.path in receiver.failing else 204
                self.send_response(status)
                self.send_header("content-length", "0")
                self.end_headers()
                with receiver.changed:
                    receiver.requests.append(
                        {"path": self.path, "headers": self.headers, "raw_body": raw, "status": status}
                    )
                    receiver.changed.notify_all()

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def url(self, path: str) -> str:
        return "http://127.0.0.1:{}{}".format(self.server.server_address[1], path)

    def next(self, match):
        """The first request matching ``match``, waiting for it up to DELIVERY_TIMEOUT."""
        deadline = time.monotonic() + DELIVERY_TIMEOUT
        with self.changed:
            while True:
                for request in self.requests:
                    if match(request):
                        return request
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError("no matching delivery within {} s".format(DELIVERY_TIMEOUT))
                self.changed.wait(left)

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


class CuttingProxy:
    """A proxy on 127.0.0.1 in front of the API that forwards each request and, for the first one
    ``cut(method, path)`` matches, waits for the API's whole answer (the write is committed) and then
    drops the client's connection instead of relaying it: the client sees a network error after the
    service did the work. Every forwarded request is kept with its Idempotency-Key and the answer's
    Idempotent-Replayed."""

    def __init__(self, cut) -> None:
        self.forwarded = []
        self.cut_done = False
        proxy = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def _forward(self):
                length = int(self.headers.get("content-length") or 0)
                body = self.rfile.read(length) if length else None
                headers = {k: v for k, v in self.headers.items() if k.lower() not in ("host", "connection")}
                request = urllib.request.Request(BASE_URL + self.path, data=body, headers=headers, method=self.command)
                try:
                    answer = urllib.request.urlopen(request, timeout=30)
                except urllib.error.HTTPError as error_answer:
                    answer = error_answer
                with answer:
                    status, answer_headers, data = answer.status, answer.headers, answer.read()
                dropped = not proxy.cut_done and cut(self.command, self.path)
                proxy.cut_done = proxy.cut_done or dropped
                proxy.forwarded.append(
                    {
                        "method": self.command,
                        "path": self.path,
                        "key": self.headers.get("idempotency-key"),
                        "status": status,
                        "replayed": answer_headers.get("idempotent-replayed"),
                        "dropped": dropped,
                    }
                )
                if dropped:
                    self.close_connection = True
                    return
                self.send_response(status)
                for name, value in answer_headers.items():
                    if name.lower() not in ("connection", "transfer-encoding", "content-length", "date", "server"):
                        self.send_header(name, value)
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = _forward

        # One request at a time: the forwarded list is in the order the client sent.
        self.server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()
        self.url = "http://127.0.0.1:{}".format(self.server.server_address[1])

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def wait_for(what, check, timeout=DELIVERY_TIMEOUT, every=0.1):
    """Polls ``check`` (a state the service writes after the receiver has answered) until truthy."""
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError("{}: not within {} s".format(what, timeout))
        time.sleep(every)


class AgainstTheService(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.admin = Client(BASE_URL)
        cls.admin.auth.login(EMAIL, PASSWORD)
        cls.pro = cls.admin.admin.create_community("Python Pro", "python-pro-" + RUN_TAG, plan="PRO")
        cls.free = cls.admin.admin.create_community("Python Free", "python-free-" + RUN_TAG, plan="FREE")
        cls.api_key = cls.admin.admin.create_api_key("python client tests", cls.pro["id"])["key"]
        cls.api_key_client = Client(BASE_URL, api_key=cls.api_key)
        cls.receiver = Receiver()
        cls.endpoint = None
        cls.webhooks_created = 0

    @classmethod
    def tearDownClass(cls):
        cls.receiver.close()

    def test_01_the_package_is_the_installed_one(self):
        # The runner installs the package into a venv: this proves `pip install` gave a working package.
        self.assertIn("site-packages", community_platform.__file__)

    def test_02_a_base_address_ending_in_api_v1_is_refused_at_construction(self):
        with self.assertRaisesRegex(ValueError, "ends in /api/v1"):
            Client(BASE_URL + "/api/v1")
        # What the refusal spares the caller: the service has no versioned routes
        # (docs/product-decisions.md#8-limits-and-unmatched-paths).
        with self.assertRaises(urllib.error.HTTPError) as answer:
            urllib.request.urlopen(BASE_URL + "/api/v1/sdk/community", timeout=10)
        self.assertEqual(answer.exception.code, 401)
        answer.exception.close()

    def test_03_login_refresh_and_renewal_of_an_unusable_access_token(self):
        issued = []
        user = Client(BASE_URL, community_id=self.pro["id"], on_tokens=issued.append)
        first = user.auth.login(EMAIL, PASSWORD, community_id=self.pro["id"])
        self.assertEqual(first["tokenType"], "Bearer")
        second = user.auth.refresh()
        self.assertNotEqual(second["accessToken"], first["accessToken"])
        self.assertEqual(user.admin.me()["user"]["email"], EMAIL)

        # An access token the service refuses (401), with a live refresh token: renewed once, call repeated.
        renewed = []
        stale = Client(
            BASE_URL,
            community_id=self.pro["id"],
            access_token="not-a-valid-token",
            refresh_token=second["refreshToken"],
            on_tokens=renewed.append,
        )
        self.assertEqual(stale.community.get()["id"], self.pro["id"])
        self.assertEqual(len(renewed), 1)
        self.assertEqual(stale.tokens["access_token"], renewed[0]["accessToken"])
        self.assertEqual(len(issued), 2)

        # The refresh token is single use: the one just traded is refused.
        with self.assertRaises(ApiError) as reused:
            user.auth.refresh_token(second["refreshToken"])
        self.assertEqual((reused.exception.status, reused.exception.code), (401, "UNAUTHORIZED"))

    def test_04_community_with_an_api_key_and_with_a_login_token(self):
        by_key = self.api_key_client.community.get()
        self.assertEqual((by_key["id"], by_key["slug"]), (self.pro["id"], self.pro["slug"]))
        by_token = Client(
            BASE_URL, access_token=self.admin.http.access_token, community_id=self.free["slug"]
        ).community.get()
        self.assertEqual(by_token["id"], self.free["id"])

    def test_05_a_45_tweet_paging_walk(self):
        for i in range(1, 46):
            self.api_key_client.tweets.create("tweet {}".format(i))
        pages = list(self.api_key_client.tweets.list(limit=10).pages())
        self.assertEqual(
            [(p["page"], len(p["items"]), p["hasMore"]) for p in pages],
            [(1, 10, True), (2, 10, True), (3, 10, True), (4, 10, True), (5, 5, False)],
        )
        contents = [t["content"] for t in self.api_key_client.tweets.list(limit=10)]
        self.assertEqual(contents, ["tweet {}".format(45 - i) for i in range(45)])

    def test_06_feature_not_available_carries_its_feature_key(self):
        with self.assertRaises(ApiError) as denied:
            self.admin.webhooks.list(self.free["id"])
        err = denied.exception
        self.assertEqual((err.status, err.code, err.feature_key), (403, "FEATURE_NOT_AVAILABLE", "webhooks"))
        self.assertTrue(err.request_id, "the X-Request-Id of the answer")

    def create_webhook(self, client, path, events):
        created = client.webhooks.create(self.pro["id"], self.receiver.url(path), events)
        type(self).webhooks_created += 1
        return created

    def test_07_a_real_delivery_received_locally_and_verified(self):
        endpoint = self.create_webhook(self.admin, "/hook", ["tweet.created"])
        type(self).endpoint = endpoint
        self.assertTrue(endpoint["secret"].startswith("whsec_"))
        tweet = self.api_key_client.tweets.create("delivered to python")
        delivery = self.receiver.next(
            lambda r: r["path"] == "/hook" and tweet["id"].encode() in r["raw_body"]
        )
        unrelated = "whsec_" + base64.b64encode(bytes([7] * 32)).decode()
        event = verify_webhook(delivery["headers"], delivery["raw_body"], [unrelated, endpoint["secret"]])
        self.assertEqual(event["type"], "tweet.created")
        self.assertEqual(event["communityId"], self.pro["id"])
        self.assertEqual(event["id"], delivery["headers"]["webhook-id"])
        self.assertEqual(event["data"]["tweet"]["id"], tweet["id"])
        with self.assertRaises(WebhookVerificationError):
            verify_webhook(delivery["headers"], delivery["raw_body"], [unrelated])

    def test_08_after_a_rotation_every_live_secret_verifies_the_test_delivery_in_the_log(self):
        endpoint = self.endpoint
        rotated = self.admin.webhooks.rotate_secret(self.pro["id"], endpoint["id"])
        attempt = self.admin.webhooks.test(self.pro["id"], endpoint["id"])
        self.assertEqual(attempt["status"], "SUCCESS")
        delivery = self.receiver.next(lambda r: r["headers"]["webhook-id"] == attempt["messageId"])
        for secret in (endpoint["secret"], rotated["secret"]):
            self.assertEqual(verify_webhook(delivery["headers"], delivery["raw_body"], secret)["type"], "webhook.test")
        logged = list(self.admin.webhooks.deliveries(self.pro["id"], endpoint["id"], limit=1))
        self.assertTrue(any(d["messageId"] == attempt["messageId"] and d["eventType"] == "webhook.test" for d in logged))
        self.assertEqual(len({d["id"] for d in logged}), len(logged))

    def test_09_a_failed_delivery_resent_and_received(self):
        self.receiver.failing.add("/flaky")
        flaky = self.create_webhook(self.admin, "/flaky", ["comment.created"])
        tweet = self.api_key_client.tweets.create("to comment on")
        comment = self.api_key_client.comments.create("tweets", tweet["id"], "a comment")
        self.receiver.next(lambda r: r["path"] == "/flaky" and comment["id"].encode() in r["raw_body"])
        failed = wait_for(
            "the failed attempt in the delivery log",
            lambda: next(iter(self.admin.webhooks.deliveries(self.pro["id"], flaky["id"], status="FAILED")), None),
        )
        self.assertEqual((failed["attempt"], failed["eventType"], failed["responseStatus"]), (1, "comment.created", 500))

        self.receiver.failing.discard("/flaky")
        resent = self.admin.webhooks.deliveries.resend(self.pro["id"], flaky["id"], failed["id"])
        self.assertEqual((resent["messageId"], resent["status"]), (failed["messageId"], "PENDING"))
        self.assertGreater(resent["attempt"], failed["attempt"])
        received = self.receiver.next(
            lambda r: r["path"] == "/flaky" and r["status"] == 204 and r["headers"]["webhook-id"] == failed["messageId"]
        )
        event = verify_webhook(received["headers"], received["raw_body"], flaky["secret"])
        self.assertEqual(event["data"]["comment"]["id"], comment["id"])

        def resent_attempt_succeeded():
            for d in self.admin.webhooks.deliveries(self.pro["id"], flaky["id"]):
                if d["id"] == resent["id"] and d["status"] == "SUCCESS":
                    return d
            return None

        wait_for("the resent attempt logged SUCCESS", resent_attempt_succeeded)

    def test_10_a_429_is_retried_after_retry_after_to_success(self):
        retries = []
        client = Client(BASE_URL, access_token=self.admin.http.access_token, on_retry=retries.append)
        # Webhook create allows a burst of 10 per caller and community (some used above), then 1 per 10 s.
        while self.webhooks_created < 10:
            self.create_webhook(client, "/filler-{}".format(self.webhooks_created + 1), ["member.joined"])
        self.assertEqual(retries, [])
        eleventh = self.create_webhook(client, "/filler-11", ["member.joined"])
        self.assertTrue(eleventh["id"])
        self.assertEqual(len(retries), 1)
        self.assertEqual((retries[0].reason, retries[0].error.code), ("rate-limited", "RATE_LIMITED"))
        self.assertTrue(0 < retries[0].delay <= 10, "waited {} s".format(retries[0].delay))

    def test_11_a_network_error_injected_on_the_first_post_is_retried_with_the_same_key_and_yields_one_tweet(self):
        proxy = CuttingProxy(lambda method, path: method == "POST" and path == "/api/sdk/tweets")
        self.addCleanup(proxy.close)
        retries = []
        client = Client(proxy.url, api_key=self.api_key, retry_base_delay=0.001, on_retry=retries.append)
        content = "cut once " + RUN_TAG
        tweet = client.tweets.create(content)
        self.assertEqual(tweet["content"], content)

        first, second = proxy.forwarded
        # The service did the first request (201) and its answer was lost; the retry got that answer again.
        self.assertEqual((first["status"], first["dropped"], first["replayed"]), (201, True, None))
        self.assertEqual((second["status"], second["dropped"], second["replayed"]), (201, False, "true"))
        self.assertTrue(first["key"], "the client sent an Idempotency-Key")
        self.assertEqual(second["key"], first["key"])
        self.assertEqual([(r.reason, r.idempotency_key) for r in retries], [("network", first["key"])])

        found = [t["id"] for t in self.api_key_client.tweets.list(limit=100) if t["content"] == content]
        self.assertEqual(found, [tweet["id"]])


if __name__ == "__main__":
    unittest.main()
