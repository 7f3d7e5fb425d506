import re
import threading
import unittest
import urllib.error

from community_platform import ApiError, Client

from .fake import RecordingSleep, ScriptedTransport, answer, ok

BASE = "https://community.example.com"
PAIR = {"tokenType": "Bearer", "accessToken": "a2", "refreshToken": "r2", "expiresIn": 60, "user": {}}


def client(fake, **options):
    return Client(options.pop("base_url", BASE), transport=fake, **options)


def unauthorized():
    return answer(401, {"success": False, "error": "Token expired", "code": "UNAUTHORIZED"})


def rate_limited(seconds):
    return answer(
        429,
        {"success": False, "error": "slow down", "code": "RATE_LIMITED", "retryAfter": seconds},
        {"Retry-After": str(seconds)},
    )


class BaseAddress(unittest.TestCase):
    def test_refuses_a_base_ending_in_api_v1_saying_what_to_give_instead(self):
        with self.assertRaises(ValueError) as refused:
            Client(BASE + "/api/v1")
        self.assertIn("ends in /api/v1", str(refused.exception))
        self.assertIn('"{}"'.format(BASE), str(refused.exception))
        with self.assertRaisesRegex(ValueError, "ends in /api/v2"):
            Client(BASE + "/api/v2/")
        with self.assertRaisesRegex(ValueError, "ends in /api"):
            Client(BASE + "/api")
        with self.assertRaisesRegex(ValueError, "absolute"):
            Client("community.example.com")

    def test_appends_api_keeping_a_path_prefix_and_dropping_trailing_slashes(self):
        fake = ScriptedTransport(ok({"id": "c1"}), ok({"id": "c1"}))
        client(fake, base_url=BASE + "/").community.get()
        client(fake, base_url=BASE + "/platform/").community.get()
        self.assertEqual(
            [c.url for c in fake.calls],
            [BASE + "/api/sdk/community", BASE + "/platform/api/sdk/community"],
        )


class Authentication(unittest.TestCase):
    def test_api_key_on_sdk_routes_login_token_on_bearer_only_routes_and_the_tenant_header(self):
        fake = ScriptedTransport(ok({"id": "c1"}), ok({"items": []}))
        c = client(fake, api_key="cpk_k", access_token="jwt", community_id="acme")
        c.community.get()
        c.webhooks.list("c1")
        first, second = fake.calls
        self.assertEqual(first.headers["x-api-key"], "cpk_k")
        self.assertNotIn("authorization", first.headers)
        self.assertEqual(first.headers["x-tenant-id"], "acme")
        self.assertEqual(second.headers["authorization"], "Bearer jwt")
        self.assertNotIn("x-api-key", second.headers)

    def test_keeps_the_pair_from_login_and_hands_it_to_on_tokens(self):
        fake = ScriptedTransport(ok(PAIR), ok({"id": "c1"}))
        seen = []
        c = client(fake, on_tokens=seen.append)
        c.auth.login("a@example.com", "pw", community_id="acme")
        c.community.get()
        self.assertNotIn("authorization", fake.calls[0].headers)
        self.assertEqual(
            fake.calls[0].json, {"email": "a@example.com", "password": "pw", "communityId": "acme"}
        )
        self.assertEqual(fake.calls[1].headers["authorization"], "Bearer a2")
        self.assertEqual(seen, [PAIR])

    def test_renews_once_on_401_with_the_refresh_token_and_repeats_the_call(self):
        fake = ScriptedTransport(unauthorized(), ok(PAIR), ok({"id": "c1"}))
        seen = []
        c = client(fake, access_token="a1", refresh_token="r1", on_tokens=seen.append)
        self.assertEqual(c.community.get(), {"id": "c1"})
        renewal = fake.calls[1]
        self.assertEqual(renewal.url, BASE + "/api/auth/refresh-token")
        self.assertNotIn("authorization", renewal.headers)
        self.assertEqual(renewal.json, {"refreshToken": "r1"})
        self.assertEqual(fake.calls[2].headers["authorization"], "Bearer a2")
        self.assertEqual(seen, [PAIR])
        self.assertEqual(c.tokens, {"access_token": "a2", "refresh_token": "r2"})

    def test_renews_at_most_once_per_call(self):
        fake = ScriptedTransport(unauthorized(), ok(PAIR), unauthorized())
        c = client(fake, access_token="a1", refresh_token="r1")
        with self.assertRaises(ApiError) as failed:
            c.tasks.get("t1")
        self.assertEqual(failed.exception.code, "UNAUTHORIZED")
        self.assertEqual(len(fake.calls), 3)

    def test_threads_meeting_a_401_together_share_one_renewal(self):
        # Both threads send with a1 and get 401 before either renews; the refresh token is single use.
        barrier = threading.Barrier(2)

        def refused_after_both_sent(call):
            barrier.wait(timeout=5)
            return unauthorized()

        fake = ScriptedTransport(
            refused_after_both_sent, refused_after_both_sent, ok(PAIR), ok({"id": "c1"}), ok({"id": "c1"})
        )
        c = client(fake, access_token="a1", refresh_token="r1")
        results = []
        threads = [threading.Thread(target=lambda: results.append(c.community.get())) for _ in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(5)
        self.assertEqual(results, [{"id": "c1"}, {"id": "c1"}])
        self.assertEqual(sum(1 for call in fake.calls if call.path.endswith("/refresh-token")), 1)

    def test_does_not_renew_an_api_key_call(self):
        fake = ScriptedTransport(answer(401, {"success": False, "error": "bad key", "code": "UNAUTHORIZED"}))
        with self.assertRaises(ApiError) as failed:
            client(fake, api_key="cpk_k", refresh_token="r1").community.get()
        self.assertEqual(failed.exception.status, 401)
        self.assertEqual(len(fake.calls), 1)


class Errors(unittest.TestCase):
    def test_carries_status_code_feature_key_details_retry_after_and_request_id(self):
        fake = ScriptedTransport(
            answer(
                403,
                {"success": False, "error": "Plan lacks webhooks", "code": "FEATURE_NOT_AVAILABLE", "featureKey": "webhooks"},
                {"X-Request-Id": "req-1"},
            ),
            answer(
                400,
                {
                    "success": False,
                    "error": "content: too long",
                    "code": "VALIDATION_ERROR",
                    "details": [{"field": "content", "message": "too long"}],
                },
            ),
        )
        c = client(fake, access_token="t")
        with self.assertRaises(ApiError) as denied:
            c.webhooks.list("c1")
        err = denied.exception
        self.assertEqual(str(err), "Plan lacks webhooks")
        self.assertEqual(
            (err.status, err.code, err.feature_key, err.request_id, err.details),
            (403, "FEATURE_NOT_AVAILABLE", "webhooks", "req-1", None),
        )
        with self.assertRaises(ApiError) as invalid:
            c.tweets.create("x")
        self.assertEqual(invalid.exception.details, [{"field": "content", "message": "too long"}])

    def test_a_failure_before_any_answer_is_network_error_with_status_0(self):
        cause = urllib.error.URLError(ConnectionRefusedError(111, "Connection refused"))
        fake = ScriptedTransport(cause)
        with self.assertRaises(ApiError) as failed:
            client(fake, max_retries=0).community.get()
        self.assertEqual((failed.exception.status, failed.exception.code), (0, "NETWORK_ERROR"))
        self.assertIs(failed.exception.__cause__, cause)

    def test_a_non_json_error_body_keeps_its_text(self):
        from community_platform import Response

        fake = ScriptedTransport(Response(502, "Bad Gateway", {}, b"<html>proxy down</html>"))
        with self.assertRaises(ApiError) as failed:
            client(fake, max_retries=0).community.get()
        self.assertEqual((failed.exception.status, failed.exception.code), (502, "HTTP_502"))
        self.assertEqual(failed.exception.body, {"error": "<html>proxy down</html>"})


class Retries(unittest.TestCase):
    def test_retries_a_429_after_retry_after_on_any_method(self):
        sleep = RecordingSleep()
        retries = []
        fake = ScriptedTransport(rate_limited(3), ok({"id": "w1", "secret": "whsec_x"}, 201))
        c = client(fake, access_token="t", sleep=sleep, on_retry=retries.append)
        created = c.webhooks.create("c1", "https://x", ["tweet.created"])
        self.assertEqual(created["id"], "w1")
        self.assertEqual(sleep.delays, [3.0])
        self.assertEqual([(r.reason, r.retry, r.error.code) for r in retries], [("rate-limited", 1, "RATE_LIMITED")])
        self.assertEqual(fake.calls[1].body, fake.calls[0].body)

    def test_a_fractional_retry_after_is_waited_to_the_millisecond(self):
        sleep = RecordingSleep()
        fake = ScriptedTransport(rate_limited(0.2504), ok({}))
        client(fake, sleep=sleep).community.get()
        self.assertEqual(sleep.delays, [0.251])

    def test_reads_retry_after_from_the_header_when_the_body_has_none(self):
        sleep = RecordingSleep()
        fake = ScriptedTransport(answer(429, {"error": "slow"}, {"Retry-After": "2"}), ok({}))
        client(fake, sleep=sleep).community.get()
        self.assertEqual(sleep.delays, [2.0])

    def test_gives_up_after_max_retries_and_when_retry_after_is_beyond_max_retry_delay(self):
        sleep = RecordingSleep()
        fake = ScriptedTransport(rate_limited(1), rate_limited(1), rate_limited(1))
        with self.assertRaises(ApiError) as failed:
            client(fake, sleep=sleep, max_retries=2).community.get()
        self.assertEqual((failed.exception.status, failed.exception.retry_after), (429, 1))
        self.assertEqual(sleep.delays, [1.0, 1.0])

        long = ScriptedTransport(rate_limited(120))
        with self.assertRaises(ApiError) as failed:
            client(long, sleep=sleep, max_retry_delay=60).community.get()
        self.assertEqual(failed.exception.retry_after, 120)
        self.assertEqual(len(long.calls), 1)

    def test_retries_network_errors_of_idempotent_calls_with_doubling_delays_never_of_an_unkeyed_post(self):
        sleep = RecordingSleep()
        fake = ScriptedTransport(ConnectionResetError(104, "reset"), TimeoutError("timed out"), ok({"id": "c1"}))
        self.assertEqual(client(fake, sleep=sleep, retry_base_delay=0.1).community.get(), {"id": "c1"})
        self.assertEqual(sleep.delays, [0.1, 0.2])

        # A POST without an Idempotency-Key (the auth routes take none) may have been done: not sent again.
        post = ScriptedTransport(ConnectionResetError(104, "reset"))
        with self.assertRaises(ApiError) as failed:
            client(post, sleep=sleep).auth.login("a@example.com", "pw")
        self.assertEqual(failed.exception.code, "NETWORK_ERROR")
        self.assertEqual(len(post.calls), 1)

    def test_max_retries_0_turns_retries_off(self):
        fake = ScriptedTransport(rate_limited(1))
        with self.assertRaises(ApiError):
            client(fake, sleep=RecordingSleep(), max_retries=0).community.get()
        self.assertEqual(len(fake.calls), 1)


TWEETS = [{"id": "t{}".format(i)} for i in range(45)]


def page_of(call):
    query = dict(call.query)
    page, limit = int(query["page"]), int(query.get("limit", 20))
    items = TWEETS[(page - 1) * limit : page * limit]
    return ok({"items": items, "page": page, "limit": limit, "total": 45, "hasMore": page * limit < 45})


class Pagination(unittest.TestCase):
    def test_walks_every_page_of_an_sdk_list_lazily(self):
        fake = ScriptedTransport(page_of, page_of, page_of)
        tweets = client(fake).tweets.list(limit=20)
        self.assertEqual(fake.calls, [])
        self.assertEqual([t["id"] for t in tweets], [t["id"] for t in TWEETS])
        self.assertEqual(
            [c.query for c in fake.calls],
            [[("limit", "20"), ("page", "1")], [("limit", "20"), ("page", "2")], [("limit", "20"), ("page", "3")]],
        )

    def test_stops_early_when_the_caller_breaks_and_pages_yields_whole_pages(self):
        fake = ScriptedTransport(page_of, page_of, page_of)
        c = client(fake, max_retries=0)
        for tweet in c.tweets.list(limit=10):
            if tweet["id"] == "t3":
                break
        self.assertEqual(len(fake.calls), 1)
        self.assertEqual([len(p["items"]) for p in c.tweets.list(limit=40).pages()], [40, 5])
        self.assertEqual(fake.answers, [])

    def test_walks_the_delivery_log_by_offset(self):
        attempts = [{"id": "d{}".format(i)} for i in range(5)]

        def by_offset(call):
            query = dict(call.query)
            offset, limit = int(query["offset"]), int(query["limit"])
            return ok({"items": attempts[offset : offset + limit], "limit": limit, "offset": offset, "total": 5, "hasMore": offset + limit < 5})

        fake = ScriptedTransport(by_offset, by_offset, by_offset)
        ids = [d["id"] for d in client(fake, access_token="t").webhooks.deliveries("c1", "w1", status="FAILED", limit=2)]
        self.assertEqual(ids, ["d0", "d1", "d2", "d3", "d4"])
        self.assertEqual(
            [c.query for c in fake.calls],
            [
                [("status", "FAILED"), ("limit", "2"), ("offset", str(offset))]
                for offset in (0, 2, 4)
            ],
        )
        self.assertEqual(fake.calls[0].path, "/api/communities/c1/webhooks/w1/deliveries")


class Routes(unittest.TestCase):
    def test_keyword_arguments_become_the_camel_case_body_and_none_is_left_out(self):
        fake = ScriptedTransport(ok({}), ok({}), ok({}))
        c = client(fake, access_token="t")
        c.admin.create_api_key("ci", "c1", scopes=None)
        c.customization.create_advertisement(title="t", image_url="https://i", is_active=True)
        c.webhooks.update("c 1", "w/1", is_active=False)
        self.assertEqual(fake.calls[0].json, {"name": "ci", "communityId": "c1"})
        self.assertEqual(fake.calls[1].json, {"title": "t", "imageUrl": "https://i", "isActive": True})
        self.assertEqual(fake.calls[2].url, BASE + "/api/communities/c%201/webhooks/w%2F1")
        self.assertEqual((fake.calls[2].method, fake.calls[2].json), ("PATCH", {"isActive": False}))

    def test_resend_posts_to_the_delivery_and_answers_the_new_attempt(self):
        attempt = {"id": "d2", "messageId": "msg_1", "attempt": 2, "status": "PENDING"}
        fake = ScriptedTransport(ok(attempt, 202))
        resent = client(fake, api_key="cpk_k", access_token="t").webhooks.deliveries.resend("c1", "w1", "d1")
        self.assertEqual(resent, attempt)
        call = fake.calls[0]
        self.assertEqual((call.method, call.path), ("POST", "/api/communities/c1/webhooks/w1/deliveries/d1/resend"))
        self.assertEqual(call.headers["authorization"], "Bearer t")
        self.assertNotIn("x-api-key", call.headers)
        self.assertEqual(call.json, {})

    def test_recover_sends_the_window_as_iso_8601(self):
        import datetime

        fake = ScriptedTransport(ok({"queued": 3, "remaining": 0}, 202), ok({"queued": 0, "remaining": 0}, 202))
        c = client(fake, access_token="t")
        since = datetime.datetime(2026, 11, 20, 0, 0, tzinfo=datetime.timezone.utc)
        self.assertEqual(c.webhooks.recover("c1", "w1", since), {"queued": 3, "remaining": 0})
        c.webhooks.recover("c1", "w1", "2026-11-20T00:00:00Z", until="2026-11-21T00:00:00Z")
        self.assertEqual(fake.calls[0].path, "/api/communities/c1/webhooks/w1/recover")
        self.assertEqual(fake.calls[0].json, {"since": "2026-11-20T00:00:00Z"})
        self.assertEqual(fake.calls[1].json, {"since": "2026-11-20T00:00:00Z", "until": "2026-11-21T00:00:00Z"})
        with self.assertRaisesRegex(ValueError, "aware"):
            c.webhooks.recover("c1", "w1", datetime.datetime(2026, 11, 20))

    def test_recover_sends_include_only_when_given(self):
        answer = {"queued": 10, "remaining": 0, "expired": 2}
        fake = ScriptedTransport(ok(answer, 202), ok({"queued": 0, "remaining": 0, "expired": 0}, 202))
        c = client(fake, access_token="t")
        self.assertEqual(c.webhooks.recover("c1", "w1", "2026-11-20T00:00:00Z", include=("failed", "missed")), answer)
        c.webhooks.recover("c1", "w1", "2026-11-20T00:00:00Z")
        self.assertEqual(fake.calls[0].json, {"since": "2026-11-20T00:00:00Z", "include": ["failed", "missed"]})
        self.assertEqual(fake.calls[1].json, {"since": "2026-11-20T00:00:00Z"})

    def test_every_operation_of_the_document_is_a_method_that_calls_it(self):
        # The generator's naming (scripts/generate.py, clients/routes.json) says where each operation
        # is; the document says which call it makes. A method the generator skipped, or one that calls
        # another route, fails here.
        from .openapi import document, generator

        gen = generator()
        doc = document()
        table = gen.load_table()
        fake = ScriptedTransport(*[lambda call: ok({"items": [], "hasMore": False, "accessToken": "a", "refreshToken": "r"})] * 200)
        c = client(fake, access_token="t", refresh_token="r")
        checked = []
        for operation_id, method, template, group, name, operation in gen.client_operations(doc, table):
            target = getattr(c, group)
            for part in name:
                target = getattr(target, part)
            path_params = [p for p in operation.get("parameters", []) if p["in"] == "path"]
            args = [(p["schema"].get("enum") or ["ID"])[0] for p in path_params]
            body = gen.body_schema(doc, operation)
            if body is not None:
                args += ["x"] * len(gen.positional_fields(table, operation_id, body))
            # A route whose operation lists the Idempotency-Key header takes the caller's key; no other
            # sends one (GETs, the anonymous auth routes, the portal-session exchange).
            keyed = gen.takes_idempotency_key(operation)
            options = {"idempotency_key": "key-" + operation_id} if keyed else {}
            before = len(fake.calls)
            with self.subTest(operation=operation_id, method=".".join([group] + name)):
                answer = target(*args, **options)
                if hasattr(answer, "pages"):
                    next(iter(answer.pages()))
                self.assertEqual(len(fake.calls), before + 1)
                call = fake.calls[-1]
                pattern = "^" + re.sub(r"\\{[^/]+?\\}", "[^/]+", re.escape(template)) + "$"
                self.assertEqual(call.method, method.upper())
                self.assertRegex(call.path, pattern)
                self.assertEqual(call.headers.get("idempotency-key"), options.get("idempotency_key"))
                self.assertNotIn("idempotencyKey", call.json or {})
                checked.append(operation_id)
        documented = [
            item[m]["operationId"]
            for path, item in doc["paths"].items()
            for m in ("get", "post", "put", "patch", "delete")
            if m in item and not path.startswith("/api/health")  # probes for orchestrators, not client routes
        ]
        self.assertEqual(sorted(checked), sorted(documented))

if __name__ == "__main__":
    unittest.main()
