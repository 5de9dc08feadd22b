package io.pgvs3.core.job;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import io.pgvs3.core.UuidV7;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
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

    private static final String STATES = "agree-states";

    private static final String STATES_SCHEMA = "\"s3q_" + STATES + "\"";

    private static final JsonMapper MAPPER = JsonMapper.builder().build();

    /** What differs between two jobs enqueued one after the other: their ids and their enqueue times. */
    private static final Set<String> PER_JOB = Set.of("id", "created_at", "enqueued_at");

    @Test
    void aJobWithEveryFieldHasTheSameEnvelopeFromSqlAndFromJava() {
        RetryPolicy retry = new RetryPolicy(4, Duration.ofMillis(1500), 1.5, Duration.ofMinutes(2), true, "linear",
                List.of("fatal.*"), RetryPolicy.DEAD_LETTER);
        NewJob.Builder job = NewJob.builder("agree.full").queue("agree").priority(-7)
                .args("[\"ada\", {\"n\": 1, \"b\": [1.50, null]}, 1e2, -7.25, 12345678901234567890123]")
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

    /**
     * A unique job goes to SQL as a JSON spec, a plain job as one parameter per column: both must store, and answer,
     * the JSON values as the client wrote them (as {@code jsonb} reads them), not as Jackson would write them back.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = { "[1e2, 1E+2, 2.5e1, 1.50e1, 1.5E-3, 1e-2]",
            "[12345678901234567890123, 9007199254740993, 2147483648, -7, 0]",
            "[0.10, 1.50, -0.0, 0.1000000000000000000001, 3.14159265358979323846264338327950288]",
            "[{\"b\": [1e2, {\"d\": 1.0, \"c\": null}], \"a\": \"\u00e9\", \"a\": 2}, [[], {}], true, null, \"s\"]" })
    void theSameValuesGiveTheSameJsonOnTheUniqueAndTheRowsPath(String args) {
        NewJob.Builder job = NewJob.builder("agree.values").queue("agree").args(args)
                .meta("{\"n\": " + args + ", \"x\": 1e1}")
                .options("{\"tags\": " + args + "}")
                .extra("{\"x_values\": " + args + "}");
        Job plain = store.enqueue(job.id(UuidV7.generate().toString()).unique(null).build());
        Job unique = store.enqueue(job.id(UuidV7.generate().toString())
                .unique(new UniqueOptions(null, null, null, "values-" + UuidV7.generate(), null, null, null)).build());

        for (String field : List.of("args", "meta", "tags", "x_values")) {
            assertThat(unique.envelope().get(field)).as(field).isEqualTo(plain.envelope().get(field));
            assertThat(unique.envelope().get(field).toString()).as(field)
                    .isEqualTo(plain.envelope().get(field).toString());
            assertThat(store.get(unique.id()).orElseThrow().envelope().get(field)).as(field)
                    .isEqualTo(store.get(plain.id()).orElseThrow().envelope().get(field));
        }
        assertThat(unique.argsJson()).isEqualTo(plain.argsJson());
        assertThat(unique.metaJson()).isEqualTo(plain.metaJson());
        assertThat(storedJson(unique.id())).isEqualTo(storedJson(plain.id()));
    }

    /** The JSON columns of a job's row as {@code jsonb} prints them. */
    private List<String> storedJson(String id) {
        return jdbc.queryForObject("SELECT ARRAY[args::text, meta::text, options::text, extra::text]::text"
                + " FROM \"s3q_agree\".jobs WHERE id = ?::uuid", (rs, row) -> List.of(rs.getString(1)), id);
    }

    @Test
    void aRowInEveryStateHasTheSameEnvelopeFromSqlAndFromJobRows() {
        NewJob.Builder job = NewJob.builder("agree.states").queue(STATES).args("[1e2, 1.50, {\"b\": null, \"a\": 2}]")
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
        ids.add(store.enqueue(NewJob.builder("agree.states").queue(STATES).options("{\"tags\": null}")
                .retry(new RetryPolicy(1, Duration.ofSeconds(1), 2.0, Duration.ofSeconds(10), false, "exponential",
                        List.of(), RetryPolicy.DEAD_LETTER)).build()).id());
        store.cancel(ids.get(0));
        List<Job> fetched = store.fetch(List.of(STATES), 10, "w-1", Duration.ofMinutes(1));
        assertThat(fetched).extracting(Job::id).contains(ids.get(1), ids.get(4), ids.get(5), ids.get(7));
        for (Job fetchedJob : fetched) {
            assertThat(fetchedJob.envelope().toString()).isEqualTo(sqlEnvelope(fetchedJob.id()).toString());
        }
        store.ack(ids.get(1), "w-1", "{\"n\": 1.0e1}");
        store.nack(ids.get(2), "w-1", JobError.of("boom", "it broke", true, "{\"k\": null}"), false);
        store.nack(ids.get(3), "w-1", JobError.of("fatal", "no", false, null), false);
        store.nack(ids.get(7), "w-1", JobError.of("boom", "again", true, null), true);
        jdbc.update("UPDATE " + STATES_SCHEMA + ".jobs SET workflow_id = ?::uuid WHERE id = ?::uuid",
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
                "SELECT " + STATES_SCHEMA + ".envelope(j)::text FROM " + STATES_SCHEMA + ".jobs j WHERE j.id = ?::uuid", String.class,
                id));
    }

    /** The envelope {@link JobRows} builds from the job's row, read with the columns {@code s3p.fetch_job_rows} has. */
    private ObjectNode jobRowsEnvelope(String id) {
        JobRows rows = new JobRows(MAPPER);
        return jdbc.query("SELECT '" + STATES + "'::text AS queue, j.options -> 'tags' AS tags, j.* FROM " + STATES_SCHEMA + ".jobs j"
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
