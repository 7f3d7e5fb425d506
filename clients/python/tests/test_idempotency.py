"""Idempotency-Key on writes, against a real HTTP server on 127.0.0.1 that can cut a connection after
reading a request (the service did the write, the client saw no answer)."""

import http.server
import json
import re
import threading
import unittest

from community_platform import ApiError, Client

from .fake import RecordingSleep

UUID_V4 = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")
KEY_IN_USE = (
    409,
    {"success": False, "error": "A request with this key is still running", "code": "IDEMPOTENCY_KEY_IN_USE"},
    [("Retry-After", "1")],
)
DROP = "drop"


class Handler(http.server.BaseHTTPRequestHandler):
    # Keep-alive, as the service answers: a cut connection is then one the client may have reused.
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def _handle(self):
        length = int(self.headers.get("content-length") or 0)
        body = self.rfile.read(length) if length else b""
        server = self.server
        with server.lock:
            server.received.append(
                {
                    "method": self.command,
                    "path": self.path,
                    "key": self.headers.get("idempotency-key"),
                    "body": json.loads(body) if body else None,
                }
            )
            plan = server.plan.pop(0) if server.plan else None
        if plan == DROP:
            # The request was read in full (the service would have done the write); no answer comes.
            self.close_connection = True
            return
        status, data, headers = plan or (201, {"success": True, "data": {"id": "t1"}}, [])
        payload = json.dumps(data).encode("utf-8")
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(payload)))
        for name, value in headers:
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(payload)

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = _handle


class IdempotentWrites(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        cls.server.lock = threading.Lock()
        cls.thread = threading.Thread(target=cls.server.serve_forever, daemon=True)
        cls.thread.start()
        cls.base = "http://127.0.0.1:{}".format(cls.server.server_address[1])

    @classmethod
    def tearDownClass(cls):
        cls.server.shutdown()
        cls.server.server_close()

    def setUp(self):
        # What the next requests get, in order (DROP, or (status, body, headers)); then 201.
        self.server.plan = []
        self.server.received = []
        self.sleep = RecordingSleep()
        self.retries = []

    def client(self, **options):
        options.setdefault("sleep", self.sleep)
        return Client(self.base, api_key="cpk_k", on_retry=self.retries.append, **options)

    @staticmethod
    def create_tweet(c, content, key=None):
        return c.tweets.create(content, idempotency_key=key)

    def test_a_post_cut_after_the_request_is_retried_with_the_same_key(self):
        self.server.plan = [DROP]
        self.assertEqual(self.create_tweet(self.client(retry_base_delay=0.25), "hello"), {"id": "t1"})
        first, second = self.server.received
        self.assertEqual((first["method"], first["path"], first["body"]), ("POST", "/api/sdk/tweets", {"content": "hello"}))
        self.assertEqual(second, first)
        self.assertRegex(first["key"], UUID_V4)
        self.assertEqual(
            [(r.reason, r.retry, r.error.code, r.idempotency_key) for r in self.retries],
            [("network", 1, "NETWORK_ERROR", first["key"])],
        )
        self.assertEqual(self.sleep.delays, [0.25])

    def test_the_callers_key_is_sent_verbatim_on_every_attempt(self):
        self.server.plan = [DROP, DROP]
        self.create_tweet(self.client(), "hello", key="order-42/attempt:1")
        self.assertEqual([r["key"] for r in self.server.received], ["order-42/attempt:1"] * 3)

    def test_each_call_gets_a_fresh_key(self):
        c = self.client()
        for _ in range(3):
            self.create_tweet(c, "same body")
        keys = [r["key"] for r in self.server.received]
        self.assertEqual(len(set(keys)), 3)
        for key in keys:
            self.assertRegex(key, UUID_V4)

    def test_a_network_error_is_retried_at_most_max_retries_times_and_the_error_carries_the_key(self):
        self.server.plan = [DROP, DROP, DROP]
        with self.assertRaises(ApiError) as failed:
            self.create_tweet(self.client(max_retries=2), "hello", key="k-1")
        self.assertEqual((failed.exception.code, failed.exception.idempotency_key), ("NETWORK_ERROR", "k-1"))
        self.assertEqual(len(self.server.received), 3)

    def test_key_in_use_is_retried_after_retry_after_then_replayed(self):
        self.server.plan = [DROP, KEY_IN_USE]
        self.assertEqual(self.create_tweet(self.client(retry_base_delay=0.25), "hello"), {"id": "t1"})
        self.assertEqual(len({r["key"] for r in self.server.received}), 1)
        self.assertEqual([r.reason for r in self.retries], ["network", "key-in-use"])
        self.assertEqual(self.sleep.delays, [0.25, 1.0])

    def test_key_in_use_retries_are_bounded(self):
        self.server.plan = [KEY_IN_USE] * 3
        with self.assertRaises(ApiError) as failed:
            self.create_tweet(self.client(max_retries=2), "hello", key="k-2")
        err = failed.exception
        self.assertEqual((err.status, err.code, err.retry_after, err.idempotency_key), (409, "IDEMPOTENCY_KEY_IN_USE", 1, "k-2"))
        self.assertEqual(len(self.server.received), 3)
        self.assertEqual(self.sleep.delays, [1.0, 1.0])

        # A Retry-After beyond max_retry_delay is not waited for.
        self.server.plan = [(409, KEY_IN_USE[1], [("Retry-After", "5")])]
        with self.assertRaises(ApiError):
            self.create_tweet(self.client(max_retry_delay=2), "hello")
        self.assertEqual(len(self.server.received), 4)

    def test_key_reused_is_not_retried(self):
        self.server.plan = [
            (422, {"success": False, "error": "key used for another request", "code": "IDEMPOTENCY_KEY_REUSED"}, [])
        ]
        with self.assertRaises(ApiError) as failed:
            self.create_tweet(self.client(), "other body", key="k-3")
        self.assertEqual((failed.exception.status, failed.exception.code), (422, "IDEMPOTENCY_KEY_REUSED"))
        self.assertEqual(len(self.server.received), 1)

    def test_a_409_of_another_kind_is_not_retried(self):
        self.server.plan = [(409, {"success": False, "error": "endpoint paused", "code": "CONFLICT"}, [("Retry-After", "1")])]
        with self.assertRaises(ApiError) as failed:
            self.create_tweet(self.client(), "hello")
        self.assertEqual(failed.exception.code, "CONFLICT")
        self.assertEqual(len(self.server.received), 1)

    def test_put_patch_delete_and_the_hand_written_wrappers_send_the_key_too(self):
        c = self.client(access_token="t")
        c.customization.replace_sidebar([], idempotency_key="put-1")
        c.tweets.update("t1", content="edited", idempotency_key="patch-1")
        c.tweets.delete("t1", idempotency_key="delete-1")
        c.webhooks.recover("c1", "w1", "2026-11-20T00:00:00Z", idempotency_key="recover-1")
        c.webhooks.rotate_secret("c1", "w1")
        received = self.server.received
        self.assertEqual(
            [(r["method"], r["key"]) for r in received],
            [("PUT", "put-1"), ("PATCH", "patch-1"), ("DELETE", "delete-1"), ("POST", "recover-1"), ("POST", received[4]["key"])],
        )
        self.assertRegex(received[4]["key"], UUID_V4)
        self.assertEqual(received[3]["body"], {"since": "2026-11-20T00:00:00Z"})

    def test_gets_send_no_key_and_keep_their_retries(self):
        self.server.plan = [DROP, (200, {"success": True, "data": {"id": "c1"}}, [])]
        self.assertEqual(self.client().community.get(), {"id": "c1"})
        self.assertEqual([(r["method"], r["key"]) for r in self.server.received], [("GET", None)] * 2)

    def test_an_auth_post_or_the_portal_exchange_sends_no_key_and_is_not_retried_after_a_network_error(self):
        self.server.plan = [DROP, DROP]
        with self.assertRaises(ApiError):
            self.client().webhooks.open_portal_session("tok")
        self.assertEqual([(r["path"], r["key"]) for r in self.server.received], [("/api/webhooks/portal-sessions", None)])
        self.server.received.clear()
        with self.assertRaises(ApiError) as failed:
            self.client().auth.login("a@example.com", "pw")
        self.assertEqual(failed.exception.code, "NETWORK_ERROR")
        self.assertIsNone(failed.exception.idempotency_key)
        self.assertEqual([(r["path"], r["key"]) for r in self.server.received], [("/api/auth/login", None)])
        self.assertEqual(self.retries, [])


if __name__ == "__main__":
    unittest.main()
