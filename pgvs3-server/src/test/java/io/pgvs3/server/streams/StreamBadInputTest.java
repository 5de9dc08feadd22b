package io.pgvs3.server.streams;

import java.util.Collections;
import java.util.List;
import java.util.Map;

import io.pgvs3.server.ServerTestSupport;
import io.pgvs3.test.OjsClient.Response;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class StreamBadInputTest extends ServerTestSupport {

    @BeforeEach
    void queue() {
        http.post("/ojs/v1/queues/bad/consumers", Map.of("consumer", "c"));
    }

    @Test
    void everyRouteAnswersBadInputWithAnOjsError() {
        Map<String, Object> ok = Map.of("type", "t", "payload", 1);
        String huge = "x".repeat(1024 * 1024 + 10);
        List<Object[]> cases = List.of(
                // route, body, status, code
                post("/ojs/v1/queues/bad/messages", "{not json", 400, "invalid_payload"),
                post("/ojs/v1/queues/bad/messages", "[1]", 400, "invalid_request"),
                post("/ojs/v1/queues/bad/messages", Map.of("payload", 1), 400, "invalid_request"),
                post("/ojs/v1/queues/bad/messages", Map.of("type", 5, "payload", 1), 400, "invalid_request"),
                post("/ojs/v1/queues/bad/messages", Map.of("type", "t"), 400, "invalid_request"),
                post("/ojs/v1/queues/bad/messages", Map.of("type", "t", "payload", 1, "headers", Map.of("a", 1)), 400,
                        "invalid_request"),
                post("/ojs/v1/queues/bad/messages", Map.of("type", "t", "payload", huge), 413, "payload_too_large"),
                post("/ojs/v1/queues/Bad_Name/messages", ok, 400, "invalid_request"),
                post("/ojs/v1/queues/bad/messages", Map.of("type", "t", "payload", 1, "dedupe_key", ""), 400,
                        "invalid_request"),
                post("/ojs/v1/queues/bad/messages", Map.of("type", "t", "payload", 1, "dedupe_key", "k".repeat(256)),
                        400, "invalid_request"),
                // refused by the request filter before the route, like every text PostgreSQL cannot store
                post("/ojs/v1/queues/bad/messages", Map.of("type", "t", "payload", 1, "dedupe_key", "a\0b"), 400,
                        "invalid_payload"),
                post("/ojs/v1/queues/bad/messages", Map.of("type", "t", "payload", 1, "dedupe_key", 7), 400,
                        "invalid_request"),
                post("/ojs/v1/queues/bad/messages/batch", Map.of("messages", List.of(
                        Map.of("type", "t", "payload", 1, "dedupe_key", "fine"),
                        Map.of("type", "t", "payload", 1, "dedupe_key", ""))), 400, "invalid_request"),
                post("/ojs/v1/queues/bad/config", Map.of("dedupe_window", "0s"), 400, "invalid_request"),
                post("/ojs/v1/queues/bad/config", Map.of("dedupe_window", "30d"), 400, "invalid_request"),
                post("/ojs/v1/queues/bad/config", Map.of("retention", "1m", "dedupe_window", "2m"), 400, "invalid_request"),
                post("/ojs/v1/queues/bad/messages/batch", Map.of("messages", List.of()), 400, "invalid_request"),
                post("/ojs/v1/queues/bad/messages/batch", Map.of("messages", Collections.nCopies(1001, ok)), 400,
                        "invalid_request"),
                post("/ojs/v1/queues/bad/messages/batch", Map.of("messages", List.of(ok, Map.of("type", "t"))), 400,
                        "invalid_request"),
                post("/ojs/v1/queues/bad/messages/batch", Map.of("messages", "x"), 400, "invalid_request"),
                post("/ojs/v1/queues/bad/consumers", Map.of(), 400, "invalid_request"),
                post("/ojs/v1/queues/bad/consumers", Map.of("consumer", "a/b"), 400, "invalid_request"),
                post("/ojs/v1/queues/bad/consumers", Map.of("consumer", "x", "from_tick", "one"), 400, "invalid_request"),
                post("/ojs/v1/queues/bad/consumers", Map.of("consumer", "x", "from_tick", 99999), 404, "not_found"),
                post("/ojs/v1/queues/bad/receive", Map.of("consumer", "nobody"), 404, "not_found"),
                post("/ojs/v1/queues/bad/receive", Map.of("consumer", "c", "max", 0), 400, "invalid_request"),
                post("/ojs/v1/queues/bad/receive", Map.of("consumer", "c", "max", 100_001), 400, "invalid_request"),
                post("/ojs/v1/queues/bad/receive", Map.of("consumer", "c", "max", "ten"), 400, "invalid_request"),
                post("/ojs/v1/queues/bad/receive", Map.of("consumer", "c", "wait_ms", -1), 400, "invalid_request"),
                post("/ojs/v1/queues/missing/receive", Map.of("consumer", "c"), 404, "not_found"),
                post("/ojs/v1/streams/ack", Map.of("queue", "bad"), 400, "invalid_request"),
                post("/ojs/v1/streams/ack", Map.of("queue", "bad", "batch_id", "x"), 400, "invalid_request"),
                post("/ojs/v1/streams/ack", Map.of("queue", "bad", "batch_id", 424242), 404, "not_found"),
                post("/ojs/v1/streams/ack", Map.of("queue", "missing", "batch_id", 1), 404, "not_found"),
                post("/ojs/v1/streams/nack", Map.of("queue", "bad", "batch_id", 424242, "message_id", "m"), 404,
                        "not_found"),
                post("/ojs/v1/streams/nack", Map.of("queue", "bad", "batch_id", 1), 400, "invalid_request"),
                post("/ojs/v1/streams/nack", Map.of("queue", "bad", "batch_id", 1, "message_id", "m",
                        "retry_after", "soon"), 400, "invalid_request"),
                post("/ojs/v1/queues/bad/config", Map.of("max_retries", -1), 400, "invalid_request"),
                post("/ojs/v1/queues/bad/config", Map.of("retention", "0s"), 400, "invalid_request"),
                post("/ojs/v1/queues/bad/config", Map.of("retention", "forever"), 400, "invalid_request"),
                post("/ojs/v1/queues/missing/config", Map.of("max_retries", 1), 404, "not_found"),
                post("/ojs/v1/queues/bad/dlq/abc/replay", "", 400, "invalid_request"),
                post("/ojs/v1/queues/bad/dlq/77/replay", "", 404, "not_found"),
                post("/ojs/v1/queues/missing/dlq/replay", "", 404, "not_found"));
        for (Object[] c : cases) {
            Response response = http.post((String) c[0], c[1]);
            assertThat(response.status()).as("%s %s", c[0], response).isEqualTo(c[2]);
            assertThat(response.errorCode()).as("%s %s", c[0], response).isEqualTo(c[3]);
            assertThat(response.json().path("error").path("request_id").asString()).isNotEmpty();
        }
        assertGet("/ojs/v1/queues/missing/info", 404);
        assertGet("/ojs/v1/queues/missing/consumers", 404);
        assertGet("/ojs/v1/queues/missing/config", 404);
        assertGet("/ojs/v1/queues/missing/dlq", 404);
        assertGet("/ojs/v1/queues/missing/batches/1", 404);
        assertGet("/ojs/v1/queues/bad/batches/x", 400);
        assertGet("/ojs/v1/queues/bad/dlq?limit=0", 400);
        assertThat(http.delete("/ojs/v1/queues/bad/dlq").status()).isEqualTo(400);
        assertThat(http.delete("/ojs/v1/queues/bad/dlq?older_than=abc").status()).isEqualTo(400);
        assertThat(http.delete("/ojs/v1/queues/missing/consumers/c").status()).isEqualTo(404);

        // nothing was written: no events, no extra consumer, no queue for the failed routes
        assertThat(jdbc.queryForObject("SELECT count(*) FROM s3q_bad.stream_events", Long.class)).isZero();
        assertThat(jdbc.queryForObject("SELECT count(*) FROM s3q_bad.stream_subscriptions", Long.class)).isEqualTo(1);
        assertThat(jdbc.queryForObject("SELECT count(*) FROM s3p.queues WHERE name IN ('missing', 'Bad_Name')",
                Long.class)).isZero();
    }

    @Test
    void nonJsonContentIsRefused() {
        Response response = http.postRaw("/ojs/v1/queues/bad/messages", "type=t", "text/plain");
        assertThat(response.status()).isEqualTo(415);
        assertThat(response.errorCode()).isEqualTo("unsupported_media_type");
    }

    private void assertGet(String path, int status) {
        Response response = http.get(path);
        assertThat(response.status()).as("%s %s", path, response).isEqualTo(status);
        assertThat(response.errorCode()).isNotNull();
    }

    private static Object[] post(String path, Object body, int status, String code) {
        return new Object[] { path, body, status, code };
    }

}
