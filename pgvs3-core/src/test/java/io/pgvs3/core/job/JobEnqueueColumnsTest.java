package io.pgvs3.core.job;

import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import io.pgvs3.core.UuidV7;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A batch enqueue sends a column that holds one value for every job as NULL instead of an array (priorities all 0,
 * one retry policy, {@code max_attempts} from the policy, optional columns no job has). Every job must still be
 * stored with its own values, whichever columns went as arrays and whichever as NULL.
 */
class JobEnqueueColumnsTest extends JobStoreTestSupport {

    private static final JsonMapper JSON = JsonMapper.builder().build();

    private static final RetryPolicy FIVE_LINEAR = new RetryPolicy(5, Duration.ofMillis(1500), 1.5,
            Duration.ofMinutes(2), false, "linear", List.of("fatal"), RetryPolicy.DEAD_LETTER);

    private static final RetryPolicy NINE = RetryPolicy.DEFAULT.withMaxAttempts(9);

    @Test
    void jobsThatShareEveryColumnAreStoredWithTheirPolicyAndDefaults() {
        List<Job> enqueued = store.enqueueBatch(List.of(
                NewJob.builder("columns.same").queue("columns-same").args("[1]").build(),
                NewJob.builder("columns.same").queue("columns-same").args("[2]").build(),
                NewJob.builder("columns.same").queue("columns-same").args("[3]").build()));

        for (Job job : enqueued) {
            Map<String, Object> row = row("columns-same", job.id());
            assertThat(row).containsEntry("priority", 0).containsEntry("max_attempts", 3)
                    .containsEntry("state", "available").containsEntry("timeout_ms", null)
                    .containsEntry("visibility_timeout_ms", null).containsEntry("scheduled_at", null)
                    .containsEntry("expires_at", null);
            assertThat(row.get("retry").toString()).isEqualTo(policyJson(RetryPolicy.DEFAULT));
            assertThat(job.envelope()).isEqualTo(JSON.readTree(sqlEnvelope("columns-same", job.id())));
        }
        assertThat(enqueued).extracting(Job::argsJson).containsExactly("[1]", "[2]", "[3]");
    }

    @Test
    void jobsThatDifferInEveryColumnAreEachStoredWithTheirOwn() {
        Instant later = Instant.now().plusSeconds(3600);
        Instant expiry = Instant.parse("2099-01-01T00:00:00Z");
        List<Job> enqueued = store.enqueueBatch(List.of(
                NewJob.builder("columns.plain").queue("columns-mixed").build(),
                NewJob.builder("columns.urgent").queue("columns-mixed").priority(7).retry(FIVE_LINEAR)
                        .timeout(Duration.ofSeconds(10)).build(),
                NewJob.builder("columns.leased").queue("columns-mixed").retry(NINE)
                        .visibilityTimeout(Duration.ofSeconds(20)).expiresAt(expiry).build(),
                NewJob.builder("columns.later").queue("columns-mixed").priority(-3).retry(FIVE_LINEAR)
                        .scheduledAt(later).build()));

        assertThat(row("columns-mixed", enqueued.get(0).id())).containsEntry("priority", 0)
                .containsEntry("max_attempts", 3).containsEntry("timeout_ms", null).containsEntry("state", "available");
        assertThat(row("columns-mixed", enqueued.get(1).id())).containsEntry("priority", 7)
                .containsEntry("max_attempts", 5).containsEntry("timeout_ms", 10_000L)
                .containsEntry("visibility_timeout_ms", null);
        assertThat(row("columns-mixed", enqueued.get(2).id())).containsEntry("priority", 0)
                .containsEntry("max_attempts", 9).containsEntry("visibility_timeout_ms", 20_000L)
                .containsEntry("timeout_ms", null);
        assertThat(row("columns-mixed", enqueued.get(3).id())).containsEntry("priority", -3)
                .containsEntry("max_attempts", 5).containsEntry("state", "scheduled");
        assertThat(row("columns-mixed", enqueued.get(0).id()).get("retry").toString())
                .isEqualTo(policyJson(RetryPolicy.DEFAULT));
        assertThat(row("columns-mixed", enqueued.get(1).id()).get("retry").toString())
                .isEqualTo(policyJson(FIVE_LINEAR));
        assertThat(row("columns-mixed", enqueued.get(2).id()).get("retry").toString()).isEqualTo(policyJson(NINE));
        assertThat(row("columns-mixed", enqueued.get(3).id()).get("retry").toString())
                .isEqualTo(policyJson(FIVE_LINEAR));
        assertThat(jdbc.queryForObject("SELECT expires_at = ? FROM \"s3q_columns-mixed\".jobs WHERE id = ?::uuid",
                Boolean.class, Timestamp.from(expiry), enqueued.get(2).id())).isTrue();
        for (Job job : enqueued) {
            assertThat(job.envelope()).isEqualTo(JSON.readTree(sqlEnvelope("columns-mixed", job.id())));
            assertThat(store.get(job.id())).contains(job);
        }
    }

    @Test
    void enqueueRowsTakesEachColumnAsAnArrayOrAsNullForEveryJob() {
        store.enqueue(NewJob.builder("columns.first").queue("columns-sql").build());
        String first = UuidV7.generate().toString();
        String second = UuidV7.generate().toString();

        jdbc.queryForObject("SELECT e.notified FROM \"s3q_columns-sql\".enqueue_rows(ARRAY[?::uuid, ?::uuid],"
                + " ARRAY['columns.a', 'columns.b'], '[[1], [2]]'::jsonb, NULL, NULL, NULL, ARRAY[4, 0],"
                + " ARRAY[6, NULL]::integer[], '[{\"max_attempts\": 2}, {\"max_attempts\": 8}]'::jsonb, ARRAY[0, 1],"
                + " ARRAY[100, NULL]::bigint[], NULL, NULL, NULL, NULL, 0) e", Boolean.class, first, second);

        assertThat(row("columns-sql", first)).containsEntry("priority", 4).containsEntry("max_attempts", 6)
                .containsEntry("retry", "{\"max_attempts\": 2}").containsEntry("timeout_ms", 100L)
                .containsEntry("visibility_timeout_ms", null).containsEntry("state", "available");
        assertThat(row("columns-sql", second)).containsEntry("priority", 0).containsEntry("max_attempts", 8)
                .containsEntry("retry", "{\"max_attempts\": 8}").containsEntry("timeout_ms", null);
        assertThat(store.get(first).orElseThrow().argsJson()).isEqualTo("[1]");
        assertThat(store.get(second).orElseThrow().type()).isEqualTo("columns.b");
    }

    private Map<String, Object> row(String queue, String id) {
        return jdbc.queryForMap("SELECT priority, max_attempts, state, timeout_ms, visibility_timeout_ms,"
                + " scheduled_at, expires_at, retry::text AS retry FROM \"s3q_" + queue + "\".jobs WHERE id = ?::uuid",
                id);
    }

    /** The policy as its row stores it ({@code jsonb} text). */
    private String policyJson(RetryPolicy policy) {
        return jdbc.queryForObject("SELECT ?::jsonb::text", String.class,
                new RetryEncodings(JSON).of(policy).json());
    }
}
