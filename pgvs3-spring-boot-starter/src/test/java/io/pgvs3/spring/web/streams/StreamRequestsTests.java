package io.pgvs3.spring.web.streams;

import java.util.Map;

import io.pgvs3.core.error.ErrorCode;
import io.pgvs3.core.error.Pgvs3Exception;
import io.pgvs3.core.stream.NewStreamMessage;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class StreamRequestsTests {

    private final JsonMapper mapper = new JsonMapper();

    private final StreamRequests requests = new StreamRequests(mapper, 64);

    @Test
    void readsAMessageWithItsOptionalFields() {
        NewStreamMessage message = requests.message(json("{\"type\":\"order.placed\",\"id\":\"m-1\","
                + "\"payload\":{\"n\":1},\"headers\":{\"trace\":\"t\"},\"dedupe_key\":\"k\"}"), "");
        assertThat(message.type()).isEqualTo("order.placed");
        assertThat(message.id()).isEqualTo("m-1");
        assertThat(message.payloadJson()).isEqualTo("{\"n\":1}");
        assertThat(message.headers()).isEqualTo(Map.of("trace", "t"));
        assertThat(message.dedupeKey()).isEqualTo("k");
    }

    @Test
    void refusesAMessageThatIsNotAnObject() {
        assertInvalid("[1]", "messages[0]: ", "messages");
    }

    @Test
    void refusesAMissingTypeOrPayloadAndOverlongTexts() {
        assertInvalid("{\"payload\":1}", "", "type");
        assertInvalid("{\"type\":\"t\"}", "", "payload");
        assertInvalid("{\"type\":\"t\",\"payload\":null}", "", "payload");
        assertInvalid("{\"type\":\"" + "t".repeat(256) + "\",\"payload\":1}", "", "type");
        assertInvalid("{\"type\":\"t\",\"id\":\"\",\"payload\":1}", "", "id");
    }

    @Test
    void refusesHeadersThatAreNotStringsAndBadDedupeKeys() {
        assertInvalid("{\"type\":\"t\",\"payload\":1,\"headers\":[]}", "", "headers");
        assertInvalid("{\"type\":\"t\",\"payload\":1,\"headers\":{\"a\":1}}", "", "headers");
        assertInvalid("{\"type\":\"t\",\"payload\":1,\"dedupe_key\":\"\"}", "", "dedupe_key");
        assertInvalid("{\"type\":\"t\",\"payload\":1,\"dedupe_key\":\"a\\u0000b\"}", "", "dedupe_key");
    }

    @Test
    void refusesAPayloadOverTheLimitWith413() {
        assertThatThrownBy(() -> requests.message(json("{\"type\":\"t\",\"payload\":\"" + "x".repeat(80) + "\"}"),
                "")).isInstanceOfSatisfying(Pgvs3Exception.class, ex -> {
                    assertThat(ex.code()).isEqualTo(ErrorCode.PAYLOAD_TOO_LARGE);
                    assertThat(ex.details()).containsEntry("field", "payload").containsEntry("limit_bytes", 64L);
                });
    }

    @Test
    void readsBoundedIntegersAndRequiredLongs() {
        assertThat(StreamRequests.intInRange(json("{}"), "count", 10, 1, 100)).isEqualTo(10);
        assertThat(StreamRequests.intInRange(json("{\"count\":7}"), "count", 10, 1, 100)).isEqualTo(7);
        assertThatThrownBy(() -> StreamRequests.intInRange(json("{\"count\":0}"), "count", 10, 1, 100))
                .isInstanceOf(Pgvs3Exception.class).hasMessage("'count' must be between 1 and 100");
        assertThat(StreamRequests.requiredLong(json("{\"seq\":42}"), "seq")).isEqualTo(42L);
        assertThatThrownBy(() -> StreamRequests.requiredLong(json("{}"), "seq")).isInstanceOf(Pgvs3Exception.class)
                .hasMessage("'seq' is required");
    }

    private void assertInvalid(String body, String prefix, String field) {
        assertThatThrownBy(() -> requests.message(json(body), prefix)).isInstanceOfSatisfying(Pgvs3Exception.class,
                ex -> {
                    assertThat(ex.code()).isEqualTo(ErrorCode.INVALID_REQUEST);
                    assertThat(ex.getMessage()).startsWith(prefix);
                    assertThat(ex.details()).containsEntry("field", field);
                });
    }

    private JsonNode json(String text) {
        return mapper.readTree(text);
    }
}
