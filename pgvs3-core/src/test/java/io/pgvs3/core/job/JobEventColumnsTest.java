package io.pgvs3.core.job;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.UUID;

import com.zaxxer.hikari.HikariDataSource;
import io.pgvs3.core.UuidV7;
import io.pgvs3.core.catalog.CatalogMigrator;
import io.pgvs3.core.catalog.QueueCatalog;
import io.pgvs3.test.TestPostgres;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The events every job records keep their fields in columns and get their data object when read; events written
 * whole (by other transitions, or before the catalog was upgraded) read back as they were written.
 */
class JobEventColumnsTest extends JobStoreTestSupport {

    private static final ObjectMapper JSON = JsonMapper.builder().build();

    @Test
    void theLifecycleEventsAreWrittenAsColumnsAndReadWithTheirWholeData() {
        long mark = jdbc.queryForObject("SELECT coalesce(max(id), 0) FROM s3p.job_events", Long.class);
        Job job = store.enqueue(NewJob.builder("columns.one").queue("ev-columns").build());
        store.enqueueBatch(List.of(NewJob.builder("columns.many").queue("ev-columns").build(),
                NewJob.builder("columns.many").queue("ev-columns").build()));
        Job unique = store.enqueue(NewJob.builder("columns.unique").queue("ev-columns")
                .unique(new UniqueOptions(null, null, null, "columns-" + UuidV7.generate(), null, null, null)).build());
        assertThat(store.fetch(List.of("ev-columns"), 4, "w-col", Duration.ofMinutes(1))).hasSize(4);
        store.ack(job.id(), "w-col", null);

        assertThat(jdbc.queryForObject("SELECT count(*) FROM s3p.job_events WHERE id > ? AND data IS NULL"
                + " AND job_type IS NOT NULL", Long.class, mark)).isEqualTo(9);
        List<JobEvent> read = events.events(Set.of(), Set.of("ev-columns"), mark, 100);
        assertThat(read).extracting(JobEvent::type).containsExactly("job.enqueued", "job.enqueued", "job.enqueued",
                "job.enqueued", "job.started", "job.started", "job.started", "job.started", "job.completed");
        JsonNode enqueued = JSON.readTree(read.get(0).dataJson());
        assertThat(enqueued.propertyNames()).containsExactlyInAnyOrder("job_id", "job_type", "queue", "state",
                "attempt");
        assertThat(enqueued.get("job_id").asString()).isEqualTo(job.id());
        assertThat(enqueued.get("job_type").asString()).isEqualTo("columns.one");
        assertThat(enqueued.get("queue").asString()).isEqualTo("ev-columns");
        assertThat(enqueued.get("state").asString()).isEqualTo("available");
        assertThat(enqueued.get("attempt").asInt()).isZero();
        // the enqueue of a unique job, by the queue's enqueue function
        JsonNode enqueuedUnique = JSON.readTree(read.get(3).dataJson());
        assertThat(enqueuedUnique.get("job_id").asString()).isEqualTo(unique.id());
        assertThat(enqueuedUnique.get("job_type").asString()).isEqualTo("columns.unique");
        assertThat(enqueuedUnique.propertyNames()).hasSize(5);
        JsonNode started = JSON.readTree(read.get(4).dataJson());
        assertThat(started.propertyNames()).containsExactlyInAnyOrder("job_id", "job_type", "queue", "state",
                "attempt", "worker_id");
        assertThat(started.get("state").asString()).isEqualTo("active");
        assertThat(started.get("attempt").asInt()).isEqualTo(1);
        assertThat(started.get("worker_id").asString()).isEqualTo("w-col");
        JsonNode completed = JSON.readTree(read.get(8).dataJson());
        assertThat(completed.propertyNames()).containsExactlyInAnyOrder("job_id", "job_type", "queue", "state",
                "attempt", "worker_id", "duration_ms");
        assertThat(completed.get("job_id").asString()).isEqualTo(job.id());
        assertThat(completed.get("state").asString()).isEqualTo("completed");
        assertThat(completed.get("worker_id").asString()).isEqualTo("w-col");
        assertThat(completed.get("duration_ms").isIntegralNumber()).isTrue();
        // the unfiltered read builds the same objects
        assertThat(events.events(Set.of(), Set.of(), mark, 100)).filteredOn(e -> e.queue().equals("ev-columns"))
                .extracting(JobEvent::dataJson).containsExactlyElementsOf(read.stream().map(JobEvent::dataJson).toList());
    }

    @Test
    void anUpgradedCatalogReadsItsOldEventsAndStreamsItsNewOnesWhole() {
        HikariDataSource old = TestPostgres.get().newDatabase().newDataSource(3);
        try {
            JdbcTemplate oldJdbc = catalogBeforeV3(old);
            oldJdbc.queryForObject("SELECT s3p.ensure_queue_schema('upgraded')", String.class);
            oldJdbc.queryForObject("SELECT s3p.ensure_queue_schema('upgraded-events')", String.class);
            oldJdbc.queryForObject("SELECT s3p.set_job_event_stream('upgraded', 'upgraded-events')", String.class);
            UUID oldId = enqueueBeforeV3(oldJdbc, "upgraded");

            new CatalogMigrator(old).migrate();

            QueueCatalog catalog = new QueueCatalog(oldJdbc);
            JobEventLog log = new JobEventLog(oldJdbc, catalog);
            JobStore upgraded = new JobStore(oldJdbc, catalog, JobStoreSettings.DEFAULTS, log);
            Job fresh = upgraded.enqueue(NewJob.builder("new.job").queue("upgraded").build());

            List<JobEvent> read = log.events(Set.of(), Set.of(), 0, 10);
            assertThat(read).extracting(JobEvent::jobId).containsExactly(oldId.toString(), fresh.id());
            assertThat(JSON.readTree(read.get(0).dataJson())).isEqualTo(JSON.readTree(
                    "{\"job_id\":\"" + oldId + "\",\"job_type\":\"old.job\",\"queue\":\"upgraded\",\"state\":\"available\","
                            + "\"attempt\":0}"));
            assertThat(JSON.readTree(read.get(1).dataJson())).isEqualTo(JSON.readTree(
                    "{\"job_id\":\"" + fresh.id() + "\",\"job_type\":\"new.job\",\"queue\":\"upgraded\","
                            + "\"state\":\"available\",\"attempt\":0}"));
            // the stream opted in before the upgrade gets the whole data object of an event written as columns
            List<String> payloads = oldJdbc.queryForList("SELECT payload::text FROM \"s3q_upgraded-events\".stream_events"
                    + " ORDER BY seq", String.class);
            assertThat(payloads).hasSize(2);
            assertThat(JSON.readTree(payloads.get(1))).isEqualTo(JSON.readTree(read.get(1).dataJson()));
        }
        finally {
            old.close();
        }
    }
}
