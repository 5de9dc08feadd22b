package io.pgvs3.core.job;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** Retry policies are encoded once per policy, and the jobs enqueued with one do not share its tree. */
class RetryEncodingsTest extends JobStoreTestSupport {

    private final JsonMapper mapper = JsonMapper.builder().build();

    @Test
    void aPolicyIsEncodedOnceAndKeptUpToTheLimit() {
        RetryEncodings encodings = new RetryEncodings(mapper);

        RetryEncodings.Encoded first = encodings.of(RetryPolicy.DEFAULT);

        assertThat(encodings.of(RetryPolicy.DEFAULT.withMaxAttempts(RetryPolicy.DEFAULT.maxAttempts())))
                .isSameAs(first);
        assertThat(first.json()).isEqualTo(mapper.writeValueAsString(RetryPolicy.DEFAULT.toMap()));
        for (int attempts = 2; attempts < RetryEncodings.LIMIT + 10; attempts++) {
            encodings.of(RetryPolicy.DEFAULT.withMaxAttempts(attempts));
        }
        RetryPolicy beyond = RetryPolicy.DEFAULT.withMaxAttempts(RetryEncodings.LIMIT + 20);
        assertThat(encodings.of(beyond)).isNotSameAs(encodings.of(beyond)).isEqualTo(encodings.of(beyond));
    }

    @Test
    void jobsEnqueuedWithOnePolicyDoNotShareTheirRetryTree() {
        Job first = store.enqueue(NewJob.builder("test.retry").queue("retry-shared").build());
        ((ObjectNode) first.envelope().get("retry")).put("max_attempts", 99);

        Job second = store.enqueue(NewJob.builder("test.retry").queue("retry-shared").build());

        assertThat(second.envelope().get("retry").toString())
                .isEqualTo(sqlEnvelopeTree("retry-shared", second.id()).get("retry").toString());
        assertThat(second.envelope().get("retry").get("max_attempts").asInt()).isEqualTo(3);
    }

    private JsonNode sqlEnvelopeTree(String queue, String id) {
        return mapper.readTree(sqlEnvelope(queue, id));
    }
}
