package io.pgvs3.core.job;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import io.pgvs3.core.UuidV7;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The builders of a job's envelope agree: the queue's SQL {@code envelope()} (which answers an enqueue of unique jobs,
 * a get, an ack) and the Java {@link JobEnvelope}, as {@link EnqueueRows} fills it for a job just inserted (every
 * other enqueue) and as {@link JobRows} fills it from a row (a fetch), for the same job, field by field in the same key
 * order, nulls, timestamps, meta, tags, extra fields and the retry policy included, in every state.
 */
class JobEnvelopeAgreementTest extends JobStoreTestSupport {

    private static final JsonMapper MAPPER = JsonMapper.builder().build();

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

    @Test
    void aRowInEveryStateHasTheSameEnvelopeFromSqlAndFromJobRows() {
        NewJob.Builder job = NewJob.builder("agree.states").queue("agree").args("[1e2, 1.50, {\"b\": null, \"a\": 2}]")
                .meta("{\"trace\": \"t\"}").timeout(Duration.ofSeconds(5)).visibilityTimeout(Duration.ofSeconds(50))
                .options("{\"tags\": [\"t\"]}")
                // extra fields a system field overlays when it has a value, and shows through when it has none
                .extra("{\"x_custom\": [null], \"workflow_id\": \"mine\", \"worker_id\": \"mine\"}");
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            ids.add(store.enqueue(job.id(UuidV7.generate().toString()).build()).id());
        }
        ids.add(store.enqueue(job.id(UuidV7.generate().toString()).scheduledAt(Instant.now().plusSeconds(600))
                .build()).id());
        ids.add(store.enqueue(NewJob.builder("agree.states").queue("agree").options("{\"tags\": null}")
                .retry(new RetryPolicy(1, Duration.ofSeconds(1), 2.0, Duration.ofSeconds(10), false, "exponential",
                        List.of(), RetryPolicy.DEAD_LETTER)).build()).id());
        store.cancel(ids.get(0));
        List<Job> fetched = store.fetch(List.of("agree"), 10, "w-1", Duration.ofMinutes(1));
        assertThat(fetched).extracting(Job::id).contains(ids.get(1), ids.get(4), ids.get(5), ids.get(7));
        for (Job fetchedJob : fetched) {
            assertThat(fetchedJob.envelope().toString()).isEqualTo(sqlEnvelope(fetchedJob.id()).toString());
        }
        store.ack(ids.get(1), "w-1", "{\"n\": 1.0e1}");
        store.nack(ids.get(2), "w-1", JobError.of("boom", "it broke", true, "{\"k\": null}"), false);
        store.nack(ids.get(3), "w-1", JobError.of("fatal", "no", false, null), false);
        store.nack(ids.get(7), "w-1", JobError.of("boom", "again", true, null), true);
        jdbc.update("UPDATE \"s3q_agree\".jobs SET workflow_id = ?::uuid WHERE id = ?::uuid",
                UuidV7.generate().toString(), ids.get(4));

        Set<String> states = new HashSet<>();
        for (String id : ids) {
            JsonNode sql = sqlEnvelope(id);
            ObjectNode fromRow = jobRowsEnvelope(id);
            states.add(fromRow.get("state").asString());
            assertThat(fromRow).isEqualTo(sql);
            assertThat(fromRow.toString()).isEqualTo(sql.toString());
        }
        assertThat(states).contains("cancelled", "completed", "retryable", "discarded", "active", "scheduled");
    }

    private JsonNode sqlEnvelope(String id) {
        return MAPPER.readTree(jdbc.queryForObject(
                "SELECT \"s3q_agree\".envelope(j)::text FROM \"s3q_agree\".jobs j WHERE j.id = ?::uuid", String.class,
                id));
    }

    /** The envelope {@link JobRows} builds from the job's row, read with the columns {@code s3p.fetch_job_rows} has. */
    private ObjectNode jobRowsEnvelope(String id) {
        JobRows rows = new JobRows(MAPPER);
        return jdbc.query("SELECT 'agree'::text AS queue, j.options -> 'tags' AS tags, j.* FROM \"s3q_agree\".jobs j"
                + " WHERE j.id = ?::uuid", rs -> {
                    assertThat(rs.next()).isTrue();
                    return rows.envelope(rs);
                }, id);
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
