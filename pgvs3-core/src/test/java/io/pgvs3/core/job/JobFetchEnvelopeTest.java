package io.pgvs3.core.job;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A fetch builds each job's envelope from its row on the client; it must be the envelope the queue's SQL function
 * builds for the same row, key order included.
 */
class JobFetchEnvelopeTest extends JobStoreTestSupport {

    private static final String QUEUE = "fetch-envelope";

    private final JsonMapper mapper = JsonMapper.builder().build();

    @Test
    void aFetchedJobHasTheEnvelopeTheDatabaseBuildsForIt() {
        store.enqueue(NewJob.builder("plain.job").queue(QUEUE).build());
        store.enqueue(richJob(QUEUE));
        store.enqueue(NewJob.builder("big.numbers").queue(QUEUE).priority(-3)
                .timeout(Duration.ofDays(36_000)).options("{\"tags\": null}").build());
        // a job that failed once and is available again: error, errors and retry_delay_ms from its last attempt
        Job failing = store.enqueue(NewJob.builder("failed.once").queue(QUEUE).priority(-5).build());
        for (Job job : store.fetch(List.of(QUEUE), 10, "w", Duration.ofMinutes(1))) {
            if (job.id().equals(failing.id())) {
                store.nack(job.id(), "w", JobError.of("boom", "it broke", true, "{\"error_class\": \"X\"}"), true);
            }
            else {
                store.ack(job.id(), "w", "{\"ok\": true}");
            }
        }
        store.enqueue(NewJob.builder("scheduled.past").queue(QUEUE).priority(-7)
                .scheduledAt(Instant.now().plusMillis(300)).build());
        sleep(Duration.ofMillis(600));

        List<Job> fetched = store.fetch(List.of(QUEUE), 10, "worker-2", null);

        assertThat(fetched).extracting(Job::type).containsExactly("failed.once", "scheduled.past");
        store.enqueue(NewJob.builder("plain.job").queue(QUEUE).build());
        store.enqueue(NewJob.builder("rich.job").queue(QUEUE).args("[1, \"two\"]").meta("{\"m\": 1}").priority(7)
                .timeout(Duration.ofMillis(12_345)).options("{\"tags\": [\"x\"]}").extra("{\"x_custom_field\": 2}")
                .build());
        fetched = new java.util.ArrayList<>(fetched);
        fetched.addAll(store.fetch(List.of(QUEUE), 10, "worker-3", Duration.ofMillis(1_500)));
        assertThat(fetched).hasSize(4);
        for (Job job : fetched) {
            JsonNode expected = mapper.readTree(sqlEnvelope(QUEUE, job.id()));
            assertThat(job.envelope()).as(job.type()).isEqualTo(expected);
            assertThat(mapper.writeValueAsString(job.envelope())).as(job.type())
                    .isEqualTo(mapper.writeValueAsString(expected));
        }
        Job rich = fetched.get(2);
        assertThat(rich.type()).isEqualTo("rich.job");
        assertThat(rich.envelope().has("lease_expires_at")).isTrue();
        assertThat(rich.envelope().path("worker_id").asString()).isEqualTo("worker-3");
        assertThat(fetched.get(0).errors()).hasSize(1);
    }

    private static void sleep(Duration duration) {
        try {
            Thread.sleep(duration.toMillis());
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(ex);
        }
    }

    @Test
    void timestampsAreWrittenLikeTheDatabaseWritesThem() {
        assertThat(JobEnvelope.timestamp(Instant.parse("2026-01-02T03:04:05Z"))).isEqualTo("2026-01-02T03:04:05Z");
        assertThat(JobEnvelope.timestamp(Instant.parse("2026-01-02T03:04:05.120Z"))).isEqualTo("2026-01-02T03:04:05.120Z");
        assertThat(JobEnvelope.timestamp(Instant.parse("2026-01-02T03:04:05.000400Z")))
                .isEqualTo("2026-01-02T03:04:05.000Z");
        assertThat(JobEnvelope.timestamp(Instant.parse("2026-01-02T03:04:05.999999Z")))
                .isEqualTo("2026-01-02T03:04:05.999Z");
        for (String value : List.of("2026-01-02T03:04:05Z", "2026-01-02T03:04:05.12Z", "2026-01-02T03:04:05.0004Z",
                "2026-01-02T03:04:05.999999Z")) {
            assertThat(JobEnvelope.timestamp(Instant.parse(value)))
                    .isEqualTo(jdbc.queryForObject("SELECT s3p.ts(?::timestamptz)", String.class, value));
        }
    }
}
