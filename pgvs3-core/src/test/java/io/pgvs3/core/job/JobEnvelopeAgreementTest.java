package io.pgvs3.core.job;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;

import io.pgvs3.core.UuidV7;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.node.ObjectNode;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The two builders of a new job's envelope agree: the queue's SQL {@code envelope()} (which answers an enqueue of
 * unique jobs) and the Java one of {@link EnqueueRows} (which answers every other enqueue), for the same job, field by
 * field in the same key order, nulls, timestamps, meta, tags, extra fields and the retry policy included.
 */
class JobEnvelopeAgreementTest extends JobStoreTestSupport {

    /** What differs between two jobs enqueued one after the other: their ids and their enqueue times. */
    private static final Set<String> PER_JOB = Set.of("id", "created_at", "enqueued_at");

    @Test
    void aJobWithEveryFieldHasTheSameEnvelopeFromSqlAndFromJava() {
        RetryPolicy retry = new RetryPolicy(4, Duration.ofMillis(1500), 1.5, Duration.ofMinutes(2), true, "linear",
                List.of("fatal.*"), RetryPolicy.DEAD_LETTER);
        NewJob.Builder job = NewJob.builder("agree.full").queue("agree").priority(-7)
                // no exponent: the unique path sends numbers as Jackson reads them (1e2 as 100.0), the rows path as
                // written (1e2 is stored as jsonb's 100)
                .args("[\"ada\", {\"n\": 1, \"b\": [1.50, null]}, 100, -7.25]")
                .meta("{\"trace\": \"t-1\", \"nested\": {\"y\": null, \"x\": 2.50}}")
                .scheduledAt(Instant.parse("2098-03-04T05:06:07.891Z")).expiresAt(Instant.parse("2099-01-01T00:00:00Z"))
                .timeout(Duration.ofSeconds(30)).visibilityTimeout(Duration.ofMillis(45_500)).retry(retry)
                .options("{\"tags\": [\"a\", \"b\"], \"metadata\": {\"k\": 1}}")
                .extra("{\"x_custom\": {\"deep\": [1, 2.0]}, \"x_null\": null}");

        assertAgree(job);
    }

    @Test
    void aJobWithOnlyItsTypeHasTheSameEnvelopeFromSqlAndFromJava() {
        assertAgree(NewJob.builder("agree.minimal").queue("agree"));
    }

    @Test
    void aJobWithNullTagsAndNoRetryOverridesHasTheSameEnvelopeFromSqlAndFromJava() {
        assertAgree(NewJob.builder("agree.nulls").queue("agree").meta("{}").options("{\"tags\": null}")
                .expiresAt(Instant.now().plusSeconds(600)));
    }

    private void assertAgree(NewJob.Builder job) {
        Job fromJava = store.enqueue(job.id(UuidV7.generate().toString()).unique(null).build());
        Job fromSql = store.enqueue(job.id(UuidV7.generate().toString())
                .unique(new UniqueOptions(null, null, null, "agree-" + UuidV7.generate(), null, null, null)).build());

        assertThat(withoutPerJobFields(fromJava.envelope())).isEqualTo(withoutPerJobFields(fromSql.envelope()));
        assertThat(List.copyOf(fromJava.envelope().propertyNames()))
                .isEqualTo(List.copyOf(fromSql.envelope().propertyNames()));
        assertThat(fromJava.envelope().toString().replace(fromJava.id(), fromSql.id())
                .replace(fromJava.envelope().get("created_at").asString(), fromSql.envelope().get("created_at").asString()))
                .isEqualTo(fromSql.envelope().toString());
        assertThat(fromJava.envelope()).isEqualTo(store.get(fromJava.id()).orElseThrow().envelope());
        assertThat(fromSql.envelope()).isEqualTo(store.get(fromSql.id()).orElseThrow().envelope());
    }

    private static ObjectNode withoutPerJobFields(ObjectNode envelope) {
        ObjectNode copy = envelope.deepCopy();
        PER_JOB.forEach(copy::remove);
        return copy;
    }
}
