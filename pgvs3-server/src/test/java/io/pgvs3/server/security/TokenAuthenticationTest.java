package io.pgvs3.server.security;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Map;

import io.pgvs3.server.ServerTestSupport;
import io.pgvs3.spring.web.security.TokenHashes;
import io.pgvs3.test.OjsClient;
import io.pgvs3.test.OjsClient.Response;
import io.pgvs3.test.SlowHttp;
import io.pgvs3.test.SlowHttp.Reply;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static io.pgvs3.server.security.SecurityAssertions.assertError;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The server with tokens in its configuration: 401 without or with a wrong token, 403 without the route's scope or
 * outside the token's queue patterns, and nothing written by a refused request; the same when the body arrives after
 * the headers.
 */
@Tag("slow")
class TokenAuthenticationTest extends ServerTestSupport {

    static final String ADMIN = TokenHashes.newToken();
    static final String READER = TokenHashes.newToken();
    static final String PRODUCER = TokenHashes.newToken();
    static final String CONSUMER = TokenHashes.newToken();
    static final String ORDERS = TokenHashes.newToken();
    static final String ORDERS_ADMIN = TokenHashes.newToken();

    @DynamicPropertySource
    static void tokens(DynamicPropertyRegistry registry) {
        token(registry, 0, "ops", ADMIN, "admin", null);
        token(registry, 1, "dashboard", READER, "read", null);
        token(registry, 2, "producer", PRODUCER, "produce", null);
        token(registry, 3, "worker", CONSUMER, "consume", null);
        token(registry, 4, "orders", ORDERS, "produce,consume,read", "orders-*,audit");
        token(registry, 5, "orders-ops", ORDERS_ADMIN, "admin", "orders-*");
    }

    static void token(DynamicPropertyRegistry registry, int i, String name, String value, String scopes, String queues) {
        String prefix = "pgvs3.security.tokens[" + i + "].";
        registry.add(prefix + "name", () -> name);
        registry.add(prefix + "hash", () -> "sha256:" + TokenHashes.sha256(value));
        registry.add(prefix + "scopes", () -> scopes);
        if (queues != null) {
            registry.add(prefix + "queues", () -> queues);
        }
    }

    OjsClient as(String token) {
        return http.withBearer(token);
    }

    int jobs() {
        return jdbc.queryForObject("SELECT count(*) FROM s3p.job_locations()", Integer.class);
    }

    @Test
    void withoutATokenEveryRouteIs401WithTheOjsErrorBody() {
        int before = jobs();
        for (Response response : List.of(http.get("/ojs/v1/queues"), http.get("/ojs/v1/jobs/x"),
                http.post("/ojs/v1/jobs", Map.of("type", "t", "args", List.of())),
                http.post("/ojs/v1/workers/fetch", Map.of("queues", List.of("default"))),
                http.delete("/ojs/v1/queues/default"), http.postRaw("/ojs/v1/queues/default/pause", null, null),
                http.get("/ojs/v1/admin/tokens"), http.get("/ojs/v1/no-such-route"), http.get("/actuator/metrics"))) {
            assertError(response, 401, "unauthorized");
            assertThat(response.header("WWW-Authenticate")).startsWith("Bearer");
        }
        assertThat(jobs()).isEqualTo(before);
    }

    @Test
    void aWrongOrMalformedTokenIs401() {
        assertError(as("pgvs3_not-a-token").get("/ojs/v1/queues"), 401, "unauthorized");
        assertError(http.withHeader("Authorization", "Bearer").get("/ojs/v1/queues"), 401, "unauthorized");
        assertError(http.withHeader("Authorization", "Digest abc").get("/ojs/v1/queues"), 401, "unauthorized");
        // a wrong token is refused even on the open routes: it is a client error worth reporting
        assertError(as("wrong").get("/ojs/v1/health"), 401, "unauthorized");
    }

    @Test
    void livenessAndManifestStayOpenButHealthShowsNoDetailsToAnonymousCallers() {
        Response health = http.get("/ojs/v1/health");
        assertThat(health.status()).isEqualTo(200);
        assertThat(health.json().path("status").asString()).isEqualTo("ok");
        assertThat(health.text()).doesNotContain("backend").doesNotContain("version").doesNotContain("uptime");
        assertThat(http.get("/ojs/manifest").status()).isEqualTo(200);

        Response detailed = as(READER).get("/ojs/v1/health");
        assertThat(detailed.json().path("backend").path("version").asString()).isNotBlank();
    }

    @Test
    void actuatorHealthShowsDetailsOnlyToAuthenticatedCallers() {
        OjsClient http = this.http.withHeader("Accept", "application/json");
        Response anonymous = http.get("/actuator/health");
        assertThat(anonymous.status()).isEqualTo(200);
        assertThat(anonymous.json().path("status").asString()).isEqualTo("UP");
        assertThat(anonymous.text()).doesNotContain("components").doesNotContain("diskSpace")
                .doesNotContain("PostgreSQL");

        Response authenticated = http.withBearer(READER).get("/actuator/health");
        assertThat(authenticated.status()).isEqualTo(200);
        assertThat(authenticated.json().path("components").path("diskSpace").path("details").isObject()).isTrue();
        assertThat(http.withBearer(READER).get("/actuator/metrics").status()).isEqualTo(200);
    }

    @Test
    void readScopeReadsButChangesNothing() {
        int before = jobs();
        assertThat(as(ADMIN).post("/ojs/v1/jobs", Map.of("type", "t", "args", List.of(), "queue", "kept")).status())
                .isEqualTo(201);
        assertThat(as(READER).get("/ojs/v1/queues").status()).isEqualTo(200);
        assertThat(as(READER).get("/ojs/v1/queues/kept/stats").status()).isEqualTo(200);

        assertError(as(READER).post("/ojs/v1/jobs", Map.of("type", "t", "args", List.of())), 403, "forbidden");
        assertError(as(READER).delete("/ojs/v1/queues/kept"), 403, "forbidden");
        assertError(as(READER).postRaw("/ojs/v1/queues/kept/pause", null, null), 403, "forbidden");
        assertThat(jobs()).isEqualTo(before + 1);
        assertThat(jdbc.queryForObject("SELECT count(*) FROM s3p.queues WHERE name = 'kept'", Integer.class))
                .isEqualTo(1);
    }

    @Test
    void eachScopeOpensItsOwnRoutesOnly() {
        int before = jobs();
        Response enqueued = as(PRODUCER).post("/ojs/v1/jobs", Map.of("type", "t", "args", List.of(), "queue", "work"));
        assertThat(enqueued.status()).isEqualTo(201);
        Response message = as(PRODUCER).post("/ojs/v1/queues/events/messages", Map.of("type", "e", "payload", Map.of("a", 1)));
        assertThat(message.status()).as(message.toString()).isBetween(200, 201);
        assertError(as(PRODUCER).post("/ojs/v1/workers/fetch", Map.of("queues", List.of("work"))), 403, "forbidden");
        assertError(as(PRODUCER).get("/ojs/v1/queues"), 403, "forbidden");

        assertError(as(CONSUMER).post("/ojs/v1/jobs", Map.of("type", "t", "args", List.of())), 403, "forbidden");
        Response fetched = as(CONSUMER).post("/ojs/v1/workers/fetch", Map.of("queues", List.of("work")));
        assertThat(fetched.status()).isEqualTo(200);
        assertThat(fetched.json().path("jobs")).hasSize(1);
        assertError(as(CONSUMER).postRaw("/ojs/v1/queues/work/pause", null, null), 403, "forbidden");

        assertThat(as(ADMIN).postRaw("/ojs/v1/queues/work/pause", null, null).status()).isEqualTo(200);
        assertThat(as(ADMIN).delete("/ojs/v1/queues/events").status()).isEqualTo(200);
        assertThat(jobs()).isEqualTo(before + 1);
    }

    @Test
    void aLongPollCompletesAsTheCallerThatStartedIt() {
        assertThat(as(CONSUMER).post("/ojs/v1/queues/feed/consumers", Map.of("consumer", "c1")).status())
                .isBetween(200, 201);
        assertThat(as(PRODUCER).post("/ojs/v1/queues/feed/messages", Map.of("type", "e", "payload", 1)).status())
                .isEqualTo(201);
        // a receive completes in an async dispatch, which must still see the token
        Response received = as(CONSUMER).post("/ojs/v1/queues/feed/receive",
                Map.of("consumer", "c1", "max", 10, "wait_ms", 1000));
        assertThat(received.status()).as(received.toString()).isEqualTo(200);
        assertThat(received.json().path("messages")).hasSize(1);
        assertError(as(PRODUCER).post("/ojs/v1/queues/feed/receive", Map.of("consumer", "c1")), 403, "forbidden");
    }

    @Test
    void basicCredentialsCarryTheTokenAsPassword() {
        String basic = "Basic " + Base64.getEncoder()
                .encodeToString(("anyone:" + READER).getBytes(StandardCharsets.UTF_8));
        assertThat(http.withHeader("Authorization", basic).get("/ojs/v1/queues").status()).isEqualTo(200);

        Response dashboard = http.get("/dashboard/");
        assertThat(dashboard.status()).isEqualTo(401);
        assertThat(dashboard.header("WWW-Authenticate")).startsWith("Basic realm=\"pgvs3\"");
        // the dashboard's own calls leave the path the credentials were entered for: the API's 401 asks for the same
        // realm's Basic credentials too, which a browser then sends again by itself
        for (String path : List.of("/ojs/v1/queues", "/v3/api-docs")) {
            Response api = http.get(path);
            assertThat(api.status()).isEqualTo(401);
            assertThat(api.headers().allValues("WWW-Authenticate")).as(path)
                    .containsExactly("Bearer realm=\"pgvs3\"", "Basic realm=\"pgvs3\", charset=\"UTF-8\"");
        }
        assertThat(http.withHeader("Authorization", basic).withHeader("Accept", "application/json").get("/v3/api-docs")
                .status()).isEqualTo(200);
    }

    @Test
    void queuePatternsLimitPathAndBodyQueues() {
        OjsClient orders = as(ORDERS);
        assertThat(orders.post("/ojs/v1/jobs", Map.of("type", "t", "args", List.of(),
                "options", Map.of("queue", "orders-eu"))).status()).isEqualTo(201);
        assertThat(orders.post("/ojs/v1/jobs", Map.of("type", "t", "args", List.of(), "queue", "audit")).status())
                .isEqualTo(201);
        int before = jobs();

        assertError(orders.post("/ojs/v1/jobs", Map.of("type", "t", "args", List.of(), "queue", "billing")),
                403, "forbidden");
        // no queue named: the default queue, which the patterns do not allow
        assertError(orders.post("/ojs/v1/jobs", Map.of("type", "t", "args", List.of())), 403, "forbidden");
        // the top-level queue is not the one used when options.queue is set
        assertError(orders.post("/ojs/v1/jobs", Map.of("type", "t", "args", List.of(), "queue", "orders-eu",
                "options", Map.of("queue", "billing"))), 403, "forbidden");
        assertError(orders.post("/ojs/v1/jobs/batch", Map.of("jobs", List.of(
                Map.of("type", "t", "args", List.of(), "queue", "orders-us"),
                Map.of("type", "t", "args", List.of(), "queue", "billing")))), 403, "forbidden");
        assertThat(jobs()).isEqualTo(before);

        assertError(orders.post("/ojs/v1/workers/fetch", Map.of("queues", List.of("orders-eu", "billing"))),
                403, "forbidden");
        assertError(orders.post("/ojs/v1/workers/fetch", Map.of()), 403, "forbidden");
        assertThat(orders.post("/ojs/v1/workers/fetch", Map.of("queues", List.of("orders-eu"))).json()
                .path("jobs")).hasSize(1);

        assertError(orders.get("/ojs/v1/queues/billing/stats"), 403, "forbidden");
        assertError(orders.post("/ojs/v1/queues/billing/messages", Map.of("type", "e", "payload", 1)), 403, "forbidden");
        assertThat(orders.get("/ojs/v1/queues/orders-eu/stats").status()).isEqualTo(200);
        // routes whose body names queues in ways the filter does not check are closed to a limited token
        assertError(orders.post("/ojs/v1/workflows", Map.of("type", "chain", "steps", List.of())), 403, "forbidden");

        // a body that is not JSON reaches the route, which refuses it
        assertThat(orders.postRaw("/ojs/v1/jobs", "{not json", OjsClient.OJS_JSON).status()).isEqualTo(400);
        assertThat(jobs()).isEqualTo(before);
    }

    @Test
    void anAdminCreatesListsAndRevokesCatalogTokens() {
        Response created = as(ADMIN).post("/ojs/v1/admin/tokens",
                Map.of("name", "ci", "scopes", List.of("read"), "queues", List.of("ci-*")));
        assertThat(created.status()).as(created.toString()).isEqualTo(201);
        String value = created.json().path("token").asString();
        assertThat(value).startsWith("pgvs3_");
        assertThat(created.json().path("scopes").get(0).asString()).isEqualTo("read");

        // only the hash is stored
        Map<String, Object> row = jdbc.queryForMap("SELECT * FROM s3p.api_tokens WHERE name = 'ci'");
        assertThat(row.get("token_hash")).isEqualTo(TokenHashes.sha256(value));
        assertThat(row.values().toString()).doesNotContain(value);

        Response listed = as(ADMIN).get("/ojs/v1/admin/tokens");
        assertThat(listed.text()).contains("\"ci\"").doesNotContain(value).doesNotContain(TokenHashes.sha256(value));

        assertThat(as(value).get("/ojs/v1/queues/ci-1/stats").status()).isNotIn(401, 403);
        assertError(as(value).get("/ojs/v1/queues/prod/stats"), 403, "forbidden");
        assertError(as(value).post("/ojs/v1/jobs", Map.of("type", "t", "args", List.of(), "queue", "ci-1")),
                403, "forbidden");

        assertError(as(ADMIN).post("/ojs/v1/admin/tokens", Map.of("name", "ci", "scopes", List.of("read"))),
                409, "duplicate");
        assertError(as(ADMIN).post("/ojs/v1/admin/tokens", Map.of("name", "x", "scopes", List.of("root"))),
                400, "invalid_request");
        assertError(as(ADMIN).post("/ojs/v1/admin/tokens", Map.of("name", "x")), 400, "invalid_request");
        assertError(as(READER).post("/ojs/v1/admin/tokens", Map.of("name", "y", "scopes", List.of("admin"))),
                403, "forbidden");
        assertError(as(READER).get("/ojs/v1/admin/tokens"), 403, "forbidden");
        assertThat(jdbc.queryForList("SELECT name FROM s3p.api_tokens", String.class)).containsExactly("ci");

        assertThat(as(ADMIN).delete("/ojs/v1/admin/tokens/ci").status()).isEqualTo(200);
        assertError(as(value).get("/ojs/v1/queues"), 401, "unauthorized");
        assertError(as(ADMIN).delete("/ojs/v1/admin/tokens/ci"), 404, "not_found");
    }

    @Test
    void streamAcksAndNacksNameTheirQueueInTheBodyAndAreCheckedToo() {
        OjsClient admin = as(ADMIN);
        assertThat(admin.post("/ojs/v1/queues/billing-feed/consumers", Map.of("consumer", "c")).status())
                .isBetween(200, 201);
        assertThat(admin.post("/ojs/v1/queues/billing-feed/messages", Map.of("type", "e", "payload", 1)).status())
                .isEqualTo(201);
        Response received = admin.post("/ojs/v1/queues/billing-feed/receive", Map.of("consumer", "c", "max", 10));
        long batchId = received.json().path("batch_id").asLong();
        assertThat(batchId).as(received.toString()).isPositive();

        assertError(as(ORDERS).post("/ojs/v1/streams/ack", Map.of("queue", "billing-feed", "batch_id", batchId)),
                403, "forbidden");
        assertError(as(ORDERS).post("/ojs/v1/streams/nack", Map.of("queue", "billing-feed", "batch_id", batchId)),
                403, "forbidden");
        // the refused calls left the batch as it was: its owner still acknowledges it
        Response acked = admin.post("/ojs/v1/streams/ack", Map.of("queue", "billing-feed", "batch_id", batchId));
        assertThat(acked.json().path("acked").asBoolean()).as(acked.toString()).isTrue();
        // an allowed queue goes through to the route (no such batch there)
        assertThat(as(ORDERS).post("/ojs/v1/streams/ack", Map.of("queue", "orders-feed", "batch_id", batchId))
                .status()).isNotIn(401, 403);
    }

    @Test
    void aQueueLimitedTokenMayNotSendAUniquePolicySpanningEveryQueue() {
        Map<String, Object> unique = Map.of("on_conflict", "reject");
        Response other = as(ADMIN).post("/ojs/v1/jobs", Map.of("type", "dedupe", "args", List.of(), "queue", "billing",
                "options", Map.of("unique", unique)));
        assertThat(other.status()).as(other.toString()).isEqualTo(201);
        String otherId = other.json().path("job").path("id").asString();
        int before = jobs();

        for (String conflict : List.of("replace", "ignore", "reject")) {
            Response spanning = as(ORDERS).post("/ojs/v1/jobs", Map.of("type", "dedupe", "args", List.of(),
                    "queue", "orders-eu", "options", Map.of("unique", Map.of("on_conflict", conflict))));
            assertError(spanning, 403, "forbidden");
            assertThat(spanning.json().path("error").path("message").asString()).contains("unique", "queue");
        }
        assertError(as(ORDERS).post("/ojs/v1/jobs/batch", Map.of("jobs", List.of(
                Map.of("type", "other", "args", List.of(), "queue", "orders-eu"),
                Map.of("type", "dedupe", "args", List.of(), "queue", "orders-eu",
                        "options", Map.of("unique", Map.of("keys", List.of("type", "args"))))))), 403, "forbidden");
        assertThat(jobs()).isEqualTo(before);
        assertThat(as(ADMIN).get("/ojs/v1/jobs/" + otherId).json().path("job").path("state").asString())
                .isEqualTo("available");

        // within its own queue a unique policy works as usual
        assertThat(as(ORDERS).post("/ojs/v1/jobs", Map.of("type", "dedupe", "args", List.of(), "queue", "orders-eu",
                "options", Map.of("unique", Map.of("keys", List.of("type", "queue"), "on_conflict", "replace"))))
                .status()).isEqualTo(201);
        assertThat(as(ORDERS).post("/ojs/v1/jobs", Map.of("type", "dedupe", "args", List.of(), "queue", "orders-eu",
                "options", Map.of("unique", Map.of("key", "orders-dedupe")))).status()).isEqualTo(201);
        assertThat(as(ADMIN).get("/ojs/v1/jobs/" + otherId).json().path("job").path("state").asString())
                .isEqualTo("available");
    }

    @Test
    void routesNotTiedToAQueueNeedAnAdminTokenWithoutQueuePatterns() {
        OjsClient limitedAdmin = as(ORDERS_ADMIN);
        assertError(limitedAdmin.post("/ojs/v1/admin/tokens", Map.of("name", "escalated", "scopes", List.of("admin"))),
                403, "forbidden");
        assertError(limitedAdmin.get("/ojs/v1/admin/tokens"), 403, "forbidden");
        assertError(limitedAdmin.delete("/ojs/v1/admin/tokens/anything"), 403, "forbidden");
        assertError(limitedAdmin.post("/ojs/v1/cron", Map.of("name", "c", "cron", "* * * * *",
                "job", Map.of("type", "t", "args", List.of(), "queue", "orders-eu"))), 403, "forbidden");
        assertError(limitedAdmin.delete("/ojs/v1/cron/c"), 403, "forbidden");
        assertError(limitedAdmin.postRaw("/ojs/v1/cron/c/disable", null, null), 403, "forbidden");
        assertThat(jdbc.queryForObject("SELECT count(*) FROM s3p.api_tokens WHERE name = 'escalated'", Integer.class))
                .isZero();
        // its own queues it administers
        assertThat(limitedAdmin.postRaw("/ojs/v1/queues/orders-eu/pause", null, null).status()).isEqualTo(200);
        assertThat(limitedAdmin.postRaw("/ojs/v1/queues/orders-eu/resume", null, null).status()).isEqualTo(200);
        assertError(limitedAdmin.postRaw("/ojs/v1/queues/billing/pause", null, null), 403, "forbidden");
        // the job events opt-in writes to a stream that its patterns do not check, even its own queue's default
        assertError(limitedAdmin.postRaw("/ojs/v1/queues/orders-eu/job-events", null, null), 403, "forbidden");
        assertError(limitedAdmin.post("/ojs/v1/queues/orders-eu/job-events", Map.of("stream", "billing")), 403,
                "forbidden");
        assertThat(jdbc.queryForObject("SELECT count(*) FROM s3p.job_event_streams", Integer.class)).isZero();
        assertThat(as(ADMIN).postRaw("/ojs/v1/queues/orders-eu/job-events", null, null).status()).isEqualTo(200);
        assertThat(limitedAdmin.get("/ojs/v1/queues/orders-eu/job-events").json().path("job_events").path("stream")
                .asString()).isEqualTo("orders-eu.events");
        assertThat(limitedAdmin.delete("/ojs/v1/queues/orders-eu/job-events").status()).isEqualTo(200);
    }

    // a body that arrives after its headers (a slow client, chunks, a large upload) is checked like any other

    SlowHttp slow() {
        return new SlowHttp(port);
    }

    static Map<String, String> json(String token) {
        return Map.of("Content-Type", "application/json", "Authorization", "Bearer " + token);
    }

    static String job(String queue) {
        return "{\"type\":\"slow.auth\",\"queue\":\"" + queue + "\",\"args\":[\"" + "x".repeat(20_000) + "\"]}";
    }

    @Test
    void aValidTokenWithABodySentInPiecesOrChunksIsServed() {
        int before = jobs();
        Reply pieces = slow().post("/ojs/v1/jobs", json(PRODUCER), job("work"), 100);
        assertThat(pieces.status()).as(pieces.text()).isEqualTo(201);
        assertThat(pieces.body()).contains("slow.auth");
        Reply chunks = slow().postChunked("/ojs/v1/jobs", json(PRODUCER), job("work"), 50);
        assertThat(chunks.status()).as(chunks.text()).isEqualTo(201);
        Reply limited = slow().post("/ojs/v1/jobs", json(ORDERS), job("orders-eu"), 100);
        assertThat(limited.status()).as(limited.text()).isEqualTo(201);
        assertThat(jobs()).isEqualTo(before + 3);
    }

    @Test
    void aWrongTokenOrAQueueOutsideThePatternsIsRefusedAndWritesNothing() {
        int before = jobs();
        Reply wrong = slow().post("/ojs/v1/jobs", json("pgvs3_wrong"), job("work"), 100);
        assertThat(wrong.status()).as(wrong.text()).isEqualTo(401);
        assertThat(wrong.body()).contains("\"code\":\"unauthorized\"");
        Reply none = slow().post("/ojs/v1/jobs", Map.of("Content-Type", "application/json"), job("work"), 100);
        assertThat(none.status()).as(none.text()).isEqualTo(401);
        // the queue is in the body, which came late: it is checked all the same
        Reply outside = slow().post("/ojs/v1/jobs", json(ORDERS), job("billing"), 100);
        assertThat(outside.status()).as(outside.text()).isEqualTo(403);
        assertThat(outside.body()).contains("billing");
        Reply outsideChunked = slow().postChunked("/ojs/v1/jobs", json(ORDERS), job("billing"), 50);
        assertThat(outsideChunked.status()).as(outsideChunked.text()).isEqualTo(403);
        assertThat(jobs()).isEqualTo(before);
    }

    @Test
    void aCrossOriginFormWithALargeBodySentSlowlyIsRefusedAndChangesNothing() {
        assertThat(http.withBearer(ADMIN).post("/ojs/v1/jobs", Map.of("type", "t", "queue", "victim",
                "args", java.util.List.of())).status()).isEqualTo(201);
        int before = jobs();
        String basic = "Basic " + Base64.getEncoder().encodeToString(("u:" + ADMIN).getBytes(StandardCharsets.UTF_8));
        String form = "a=" + "b".repeat(70_000);
        for (String path : new String[] { "/ojs/v1/queues/victim/pause", "/ojs/v1/jobs" }) {
            Reply reply = slow().post(path, Map.of("Content-Type", "application/x-www-form-urlencoded",
                    "Origin", "https://evil.example", "Authorization", basic), form, 100);
            assertThat(reply.status()).as(reply.text()).isEqualTo(415);
        }
        assertThat(http.withBearer(ADMIN).get("/ojs/v1/queues/victim/stats").json().path("queue").path("paused")
                .asBoolean()).isFalse();
        assertThat(jobs()).isEqualTo(before);
    }
}
