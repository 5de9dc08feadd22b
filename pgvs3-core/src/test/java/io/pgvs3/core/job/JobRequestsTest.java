package io.pgvs3.core.job;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import io.pgvs3.core.error.ErrorCode;
import io.pgvs3.core.error.Pgvs3Exception;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The OJS job request read into a {@link NewJob}: every field, its aliases, and the 400 each bad field gives. */
class JobRequestsTest {

    private static final JsonMapper JSON = JsonMapper.builder().build();

    @Test
    void everyFieldIsRead() {
        NewJob job = JobRequests.parse(json("""
                {"type": "email.send", "args": ["a", 1], "meta": {"trace": "t"}, "x_custom": {"k": 1},
                 "state": "completed", "attempt": 9,
                 "options": {"queue": "mail", "priority": 5, "timeout_ms": 3000, "visibility_timeout_ms": 4000,
                             "scheduled_at": "2099-01-01T00:00:00Z", "expires_at": "2099-02-01T00:00:00Z",
                             "tags": ["t"], "retry": {"max_attempts": 7, "initial_interval": "PT2S",
                             "backoff_coefficient": 3, "max_interval": "PT1M", "jitter": false,
                             "non_retryable_errors": ["fatal"], "on_exhaustion": "dead_letter"},
                             "unique": {"key": "k-1", "period": "P1W"}}}
                """));

        assertThat(job.type()).isEqualTo("email.send");
        assertThat(job.argsJson()).isEqualTo("[\"a\",1]");
        assertThat(job.metaJson()).isEqualTo("{\"trace\":\"t\"}");
        assertThat(job.extraJson()).isEqualTo("{\"x_custom\":{\"k\":1}}");
        assertThat(job.queue().value()).isEqualTo("mail");
        assertThat(job.priority()).isEqualTo(5);
        assertThat(job.timeout()).isEqualTo(Duration.ofSeconds(3));
        assertThat(job.visibilityTimeout()).isEqualTo(Duration.ofSeconds(4));
        assertThat(job.scheduledAt()).isEqualTo(Instant.parse("2099-01-01T00:00:00Z"));
        assertThat(job.expiresAt()).isEqualTo(Instant.parse("2099-02-01T00:00:00Z"));
        assertThat(job.optionsJson()).contains("\"tags\":[\"t\"]");
        assertThat(job.retry()).isEqualTo(new RetryPolicy(7, Duration.ofSeconds(2), 3.0, Duration.ofMinutes(1), false,
                RetryPolicy.DEFAULT.backoffStrategy(), List.of("fatal"), RetryPolicy.DEAD_LETTER));
        assertThat(job.unique().key()).isEqualTo("k-1");
        assertThat(job.unique().period()).isEqualTo(Duration.ofDays(7));
    }

    @Test
    void topLevelFieldsAndAliasesAreRead() {
        NewJob job = JobRequests.parse(json("""
                {"type": "a.b", "args": [], "queue": "q", "priority": -3, "delay_until": "+PT1H",
                 "retry": {"max_attempts": 2, "initial_interval_ms": 10}}
                """));

        assertThat(job.queue().value()).isEqualTo("q");
        assertThat(job.priority()).isEqualTo(-3);
        assertThat(job.scheduledAt()).isAfter(Instant.now().plus(Duration.ofMinutes(59)));
        assertThat(job.retry().maxAttempts()).isEqualTo(2);
        assertThat(job.retry().initialInterval()).isEqualTo(Duration.ofMillis(10));
        assertThat(job.queue()).isNotNull();
        assertThat(JobRequests.parse(json("{\"type\": \"a\", \"args\": []}")).queue()).isEqualTo(NewJob.DEFAULT_QUEUE);
    }

    @Test
    void sdkUniqueKeyArraysAreDimensionsOrArgumentKeys() {
        UniqueOptions dimensions = JobPolicies.uniqueOptions(json("{\"key\": [\"type\", \"queue\"]}"));
        UniqueOptions argsKeys = JobPolicies.uniqueOptions(json("{\"key\": [\"user_id\"]}"));

        assertThat(dimensions.keys()).containsExactly("type", "queue");
        assertThat(argsKeys.keys()).containsExactly("type", "args");
        assertThat(argsKeys.argsKeys()).containsExactly("user_id");
    }

    @Test
    void eachBadFieldIsA400NamingIt() {
        assertInvalid(null, ErrorCode.INVALID_PAYLOAD, null, "request body is missing");
        assertInvalid("[]", ErrorCode.INVALID_REQUEST, null, "request body must be a JSON object, not an array");
        assertInvalid("{\"args\": []}", ErrorCode.INVALID_REQUEST, "type", "'type' is required");
        assertInvalid("{\"type\": \"a\"}", ErrorCode.INVALID_REQUEST, "args",
                "'args' is required and must be an array, not missing");
        assertInvalid("{\"type\": \"a\", \"args\": {}}", ErrorCode.INVALID_REQUEST, "args",
                "'args' is required and must be an array, not an object");
        assertInvalid("{\"type\": \"a\", \"args\": [], \"meta\": []}", ErrorCode.INVALID_REQUEST, "meta",
                "'meta' must be an object");
        assertInvalid("{\"type\": \"a\", \"args\": [], \"options\": 1}", ErrorCode.INVALID_REQUEST, "options",
                "'options' must be an object");
        assertInvalid("{\"type\": \"a\", \"args\": [], \"id\": 1}", ErrorCode.INVALID_REQUEST, "id",
                "'id' must be a string");
        assertInvalid("{\"type\": \"Bad Type\", \"args\": []}", ErrorCode.INVALID_REQUEST, "type", null);
        assertInvalid("{\"type\": \"a\", \"args\": [], \"options\": {\"priority\": 101}}", ErrorCode.INVALID_REQUEST,
                "options.priority", "priority must be between -100 and 100, not 101");
        assertInvalid("{\"type\": \"a\", \"args\": [], \"options\": {\"scheduled_at\": \"soon\"}}",
                ErrorCode.INVALID_REQUEST, "options.scheduled_at", null);
        assertInvalid("{\"type\": \"a\", \"args\": [], \"options\": {\"timeout_ms\": 0}}", ErrorCode.INVALID_REQUEST,
                "options.timeout_ms", null);
        assertInvalid("{\"type\": \"a\", \"args\": [], \"options\": {\"retry\": {\"max_attempts\": \"x\"}}}",
                ErrorCode.VALIDATION_ERROR, "options.retry.max_attempts",
                "invalid retry policy: max_attempts must be an integer");
        assertInvalid("{\"type\": \"a\", \"args\": [], \"options\": {\"unique\": {\"nope\": 1}}}",
                ErrorCode.INVALID_REQUEST, "options.unique.nope", null);
        assertInvalid("{\"type\": \"a\", \"args\": [], \"options\": {\"unique\": {\"period\": \"P1M\"}}}",
                ErrorCode.INVALID_REQUEST, "options.unique.period", null);
    }

    @Test
    void aBatchNamesItsBadJobByIndexAndHasALimit() {
        assertThat(JobRequests.parseBatch(json("{\"jobs\": [{\"type\": \"a\", \"args\": []}, {\"type\": \"b\","
                + " \"args\": [1]}]}"))).extracting(NewJob::type).containsExactly("a", "b");

        assertThatThrownBy(() -> JobRequests.parseBatch(json("{\"jobs\": [{\"type\": \"a\", \"args\": []},"
                + " {\"type\": \"b\"}]}"))).isInstanceOfSatisfying(Pgvs3Exception.class, ex -> {
                    assertThat(ex.getMessage()).isEqualTo("jobs[1]: 'args' is required and must be an array, not missing");
                    assertThat(ex.details()).containsEntry("index", 1).containsEntry("field", "args");
                });
        assertThatThrownBy(() -> JobRequests.parseBatch(json("{\"jobs\": []}")))
                .isInstanceOfSatisfying(Pgvs3Exception.class, ex -> assertThat(ex.details()).containsEntry("field", "jobs"));
        StringBuilder tooMany = new StringBuilder("{\"jobs\": [");
        for (int i = 0; i <= JobRequests.MAX_BATCH; i++) {
            tooMany.append(i == 0 ? "" : ",").append("{}");
        }
        assertThatThrownBy(() -> JobRequests.parseBatch(json(tooMany.append("]}").toString())))
                .isInstanceOfSatisfying(Pgvs3Exception.class,
                        ex -> assertThat(ex.code()).isEqualTo(ErrorCode.BATCH_TOO_LARGE));
    }

    private static void assertInvalid(String body, ErrorCode code, String field, String message) {
        JsonNode node = body == null ? null : json(body);
        assertThatThrownBy(() -> JobRequests.parse(node)).isInstanceOfSatisfying(Pgvs3Exception.class, ex -> {
            assertThat(ex.code()).isEqualTo(code);
            if (field != null) {
                assertThat(ex.details()).containsEntry("field", field);
            }
            if (message != null) {
                assertThat(ex.getMessage()).isEqualTo(message);
            }
        });
    }

    private static JsonNode json(String text) {
        return JSON.readTree(text);
    }
}
