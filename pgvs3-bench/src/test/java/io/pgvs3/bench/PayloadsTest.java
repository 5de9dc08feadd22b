package io.pgvs3.bench;

import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.Set;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;

class PayloadsTest {

    @Test
    void everyPayloadIsJsonOfTheAdvertisedSize() {
        JsonMapper mapper = new JsonMapper();
        for (int i = 0; i < 100; i++) {
            String json = Payloads.json();
            assertThat(json.getBytes(StandardCharsets.UTF_8)).hasSize(Payloads.SIZE_BYTES);
            assertThat(mapper.readTree(json).get("order_id").asString()).hasSize(36);
        }
    }

    @Test
    void messageIdsAreUniqueUuids() {
        Set<String> ids = new HashSet<>();
        for (int i = 0; i < 10_000; i++) {
            ids.add(java.util.UUID.fromString(Payloads.messageId()).toString());
        }
        assertThat(ids).hasSize(10_000);
    }
}
