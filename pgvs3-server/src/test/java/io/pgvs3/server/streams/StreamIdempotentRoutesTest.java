package io.pgvs3.server.streams;

import java.util.List;
import java.util.Map;

import io.pgvs3.server.ServerTestSupport;
import io.pgvs3.test.OjsClient.Response;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import static org.assertj.core.api.Assertions.assertThat;

class StreamIdempotentRoutesTest extends ServerTestSupport {

    @Test
    void aRetriedAppendIsAnsweredWithTheFirstOne() {
        Map<String, Object> message = Map.of("type", "order.created", "payload", Map.of("order", 1), "id", "order-1",
                "dedupe_key", "order-1-created");
        Response first = http.post("/ojs/v1/queues/idem/messages", message);
        assertThat(first.status()).as(first.toString()).isEqualTo(201);
        assertThat(first.json().path("message").path("duplicate").asBoolean()).isFalse();

        Response retry = http.post("/ojs/v1/queues/idem/messages", message);
        assertThat(retry.status()).as(retry.toString()).isEqualTo(200);
        JsonNode answered = retry.json().path("message");
        assertThat(answered.path("duplicate").asBoolean()).isTrue();
        assertThat(answered.path("id").asString()).isEqualTo("order-1");
        assertThat(answered.path("seq").asLong()).isEqualTo(first.json().path("message").path("seq").asLong());
        assertThat(answered.path("created_at").asString())
                .isEqualTo(first.json().path("message").path("created_at").asString());
        assertThat(jdbc.queryForObject("SELECT count(*) FROM s3q_idem.stream_events", Long.class)).isEqualTo(1);

        // without a key, the same id is a second event, as before
        Map<String, Object> keyless = Map.of("type", "order.created", "payload", Map.of("order", 1), "id", "order-1");
        assertThat(http.post("/ojs/v1/queues/idem/messages", keyless).status()).isEqualTo(201);
        assertThat(jdbc.queryForObject("SELECT count(*) FROM s3q_idem.stream_events", Long.class)).isEqualTo(2);
    }

    @Test
    void aBatchAnswersEveryMessageAndStoresTheNewOnes() {
        http.post("/ojs/v1/queues/idembatch/messages", Map.of("type", "t", "payload", 0, "dedupe_key", "a"));
        Response batch = http.post("/ojs/v1/queues/idembatch/messages/batch", Map.of("messages", List.of(
                Map.of("type", "t", "payload", 1, "dedupe_key", "a"),
                Map.of("type", "t", "payload", 2, "dedupe_key", "b"),
                Map.of("type", "t", "payload", 3, "dedupe_key", "b"),
                Map.of("type", "t", "payload", 4))));
        assertThat(batch.status()).as(batch.toString()).isEqualTo(201);
        JsonNode messages = batch.json().path("messages");
        assertThat(messages).hasSize(4);
        assertThat(batch.json().path("count").asInt()).isEqualTo(4);
        assertThat(batch.json().path("duplicates").asInt()).isEqualTo(2);
        assertThat(messages.get(0).path("duplicate").asBoolean()).isTrue();
        assertThat(messages.get(1).path("duplicate").asBoolean()).isFalse();
        assertThat(messages.get(2).path("duplicate").asBoolean()).isTrue();
        assertThat(messages.get(2).path("seq").asLong()).isEqualTo(messages.get(1).path("seq").asLong());
        assertThat(messages.get(3).path("duplicate").asBoolean()).isFalse();
        assertThat(jdbc.queryForObject("SELECT count(*) FROM s3q_idembatch.stream_events", Long.class)).isEqualTo(3);

        Response again = http.post("/ojs/v1/queues/idembatch/messages/batch", Map.of("messages", List.of(
                Map.of("type", "t", "payload", 1, "dedupe_key", "a"),
                Map.of("type", "t", "payload", 2, "dedupe_key", "b"))));
        assertThat(again.status()).as(again.toString()).isEqualTo(200);
        assertThat(again.json().path("duplicates").asInt()).isEqualTo(2);
    }

    @Test
    void theDedupeWindowIsConfiguredPerQueue() {
        http.post("/ojs/v1/queues/idemconfig/messages", Map.of("type", "t", "payload", 0));
        JsonNode config = http.get("/ojs/v1/queues/idemconfig/config").json().path("config");
        assertThat(config.path("dedupe_window_ms").asLong()).isEqualTo(300_000);
        Response updated = http.post("/ojs/v1/queues/idemconfig/config", Map.of("dedupe_window", "1h"));
        assertThat(updated.status()).as(updated.toString()).isEqualTo(200);
        assertThat(updated.json().path("config").path("dedupe_window").asString()).isEqualTo("PT1H");
        Response tooLong = http.post("/ojs/v1/queues/idemconfig/config",
                Map.of("retention", "2h", "dedupe_window", "3h"));
        assertThat(tooLong.status()).isEqualTo(400);
        assertThat(tooLong.errorCode()).isEqualTo("invalid_request");
        assertThat(http.get("/ojs/v1/queues/idemconfig/config").json().path("config").path("retention_ms").asLong())
                .isEqualTo(7L * 24 * 3600 * 1000);
        // a retention shorter than the window is accepted and caps it
        Response shorter = http.post("/ojs/v1/queues/idemconfig/config", Map.of("retention", "2s"));
        assertThat(shorter.status()).as(shorter.toString()).isEqualTo(200);
        assertThat(shorter.json().path("config").path("dedupe_window_ms").asLong()).isEqualTo(2_000);
    }
}
