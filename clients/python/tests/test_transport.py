"""The default transport (urllib.request) against a real HTTP server on 127.0.0.1."""

import http.server
import json
import socket
import threading
import unittest

from community_platform import ApiError, Client


class Handler(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def _answer(self, status, body, headers=()):
        data = json.dumps(body).encode("utf-8")
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        for name, value in headers:
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        if self.path == "/api/sdk/community":
            self._answer(200, {"success": True, "data": {"key": self.headers.get("x-api-key")}})
        else:
            self._answer(
                403,
                {"success": False, "error": "Plan lacks webhooks", "code": "FEATURE_NOT_AVAILABLE", "featureKey": "webhooks"},
                [("X-Request-Id", "req-7")],
            )

    def do_POST(self):
        length = int(self.headers.get("content-length", 0))
        received = json.loads(self.rfile.read(length))
        self._answer(201, {"success": True, "data": {"received": received, "type": self.headers.get("content-type")}})


class UrllibTransport(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        cls.thread = threading.Thread(target=cls.server.serve_forever, daemon=True)
        cls.thread.start()
        cls.base = "http://127.0.0.1:{}".format(cls.server.server_address[1])

    @classmethod
    def tearDownClass(cls):
        cls.server.shutdown()
        cls.server.server_close()

    def test_sends_headers_and_json_and_reads_the_envelope(self):
        c = Client(self.base, api_key="cpk_k")
        self.assertEqual(c.community.get(), {"key": "cpk_k"})
        created = c.tweets.create("hellö")
        self.assertEqual(created, {"received": {"content": "hellö"}, "type": "application/json"})

    def test_an_error_status_becomes_api_error_with_the_request_id(self):
        with self.assertRaises(ApiError) as denied:
            Client(self.base, access_token="t").webhooks.list("c1")
        err = denied.exception
        self.assertEqual((err.status, err.code, err.feature_key, err.request_id), (403, "FEATURE_NOT_AVAILABLE", "webhooks", "req-7"))

    def test_a_refused_connection_is_network_error_retried_on_a_get(self):
        with socket.socket() as probe:  # a port nothing listens on
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        retries = []
        c = Client("http://127.0.0.1:{}".format(port), max_retries=1, on_retry=retries.append, sleep=lambda s: None)
        with self.assertRaises(ApiError) as failed:
            c.community.get()
        self.assertEqual((failed.exception.status, failed.exception.code), (0, "NETWORK_ERROR"))
        self.assertEqual([r.reason for r in retries], ["network"])
