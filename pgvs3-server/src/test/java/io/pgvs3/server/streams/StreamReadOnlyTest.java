package io.pgvs3.server.streams;

import java.util.Map;

import io.pgvs3.server.ServerTestSupport;
import io.pgvs3.test.OjsClient.Response;
import org.junit.jupiter.api.Test;

import org.springframework.test.context.TestPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

@TestPropertySource(properties = "pgvs3.http.read-only=true")
class StreamReadOnlyTest extends ServerTestSupport {

    @Test
    void metadataReadsAreAllowedAndMutationsForbidden() {
        jdbc.queryForObject("SELECT s3p.ensure_queue_schema('ro')", String.class);
        for (String path : new String[] { "/ojs/v1/queues/ro/info", "/ojs/v1/queues/ro/config",
                "/ojs/v1/queues/ro/consumers", "/ojs/v1/queues/ro/dlq" }) {
            assertThat(http.get(path).status()).as(path).isEqualTo(200);
        }
        Map<String, Object> message = Map.of("type", "t", "payload", 1);
        String[] posts = { "/ojs/v1/queues/ro/messages", "/ojs/v1/queues/ro/messages/batch", "/ojs/v1/queues/ro/consumers",
                "/ojs/v1/queues/ro/receive", "/ojs/v1/streams/ack", "/ojs/v1/streams/nack", "/ojs/v1/queues/ro/config",
                "/ojs/v1/queues/ro/dlq/1/replay", "/ojs/v1/queues/ro/dlq/replay" };
        for (String path : posts) {
            Response response = http.post(path, message);
            assertThat(response.status()).as(path).isEqualTo(403);
            assertThat(response.errorCode()).isEqualTo("forbidden");
        }
        assertThat(http.delete("/ojs/v1/queues/ro/dlq?older_than=1h").status()).isEqualTo(403);
        assertThat(http.delete("/ojs/v1/queues/ro/consumers/c").status()).isEqualTo(403);
        assertThat(jdbc.queryForObject("SELECT count(*) FROM s3q_ro.stream_events", Long.class)).isZero();
    }
}
