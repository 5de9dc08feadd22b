package io.pgvs3.core.job;

import java.time.Duration;
import java.util.List;
import java.util.UUID;

import com.zaxxer.hikari.HikariDataSource;
import io.pgvs3.core.UuidV7;
import io.pgvs3.core.catalog.CatalogMigrator;
import io.pgvs3.core.catalog.QueueCatalog;
import io.pgvs3.core.catalog.QueueName;
import io.pgvs3.core.error.ErrorCode;
import io.pgvs3.core.error.Pgvs3Exception;
import io.pgvs3.test.TestPostgres;
import org.junit.jupiter.api.Test;

import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Job ids that carry their queue: generated ids get no locator row and are still found; uniqueness holds. */
class JobIdsTest extends JobStoreTestSupport {

    @Test
    void aGeneratedIdCarriesItsQueuesTagAsSqlComputesIt() {
        store.enqueue(NewJob.builder("ids.tag").queue("ids-tag").build());
        UUID id = JobIds.generate(QueueName.of("ids-tag"));
        assertThat(UuidV7.isValid(id.toString())).isTrue();
        assertThat(UuidV7.tag(id)).isEqualTo(JobIds.tag("ids-tag"));
        assertThat(jdbc.queryForObject("SELECT s3p.job_id_tag(?)", Integer.class, id)).isEqualTo(UuidV7.tag(id));
        assertThat(jdbc.queryForObject("SELECT id_tag FROM s3p.queues WHERE name = 'ids-tag'", Integer.class))
                .isEqualTo(JobIds.tag("ids-tag"));
        assertThat(jdbc.queryForObject("SELECT s3p.queue_id_tag('ids-tag')", Integer.class)).isEqualTo(JobIds.tag("ids-tag"));
    }

    @Test
    void aGeneratedIdHasNoLocatorRowAndIsFoundByGetAckCancelAndHeartbeat() {
        Job one = store.enqueue(NewJob.builder("ids.one").queue("ids-found").build());
        List<Job> batch = store.enqueueBatch(List.of(NewJob.builder("ids.two").queue("ids-found").build(),
                NewJob.builder("ids.three").queue("ids-found").build()));
        assertThat(jdbc.queryForObject("SELECT count(*) FROM s3p.job_locator WHERE queue = 'ids-found'", Long.class))
                .isZero();
        assertThat(jdbc.queryForObject("SELECT count(*) FROM s3p.job_locations() WHERE queue = 'ids-found'",
                Long.class)).isEqualTo(3);
        assertThat(store.get(one.id())).map(Job::type).contains("ids.one");

        List<Job> fetched = store.fetch(List.of("ids-found"), 3, "w", Duration.ofMinutes(1));
        assertThat(fetched).hasSize(3);
        assertThat(store.heartbeat("w", List.of(one.id(), batch.get(0).id()), Duration.ofMinutes(2))).isNotNull();
        assertThat(store.ack(one.id(), "w", "{\"ok\": true}").state()).isEqualTo(JobState.COMPLETED);
        assertThat(store.cancel(batch.get(1).id()).state()).isEqualTo(JobState.CANCELLED);
        assertThat(jdbc.queryForObject("SELECT s3p.job_exists(?::uuid)", Boolean.class, batch.get(0).id())).isTrue();
        assertThat(jdbc.queryForObject("SELECT s3p.job_exists(?)", Boolean.class,
                JobIds.generate(QueueName.of("ids-found")))).isFalse();
        assertThat(store.get(JobIds.generate(QueueName.of("ids-found")).toString())).isEmpty();
    }

    @Test
    void aClientIdStillGetsItsLocatorRowAndIsFound() {
        String id = UuidV7.generate().toString();
        store.enqueue(NewJob.builder("ids.client").queue("ids-client").id(id).build());
        assertThat(jdbc.queryForObject("SELECT queue FROM s3p.job_locator WHERE id = ?::uuid", String.class, id))
                .isEqualTo("ids-client");
        assertThat(store.get(id)).map(Job::queue).contains("ids-client");
        assertThatThrownBy(() -> store.enqueue(NewJob.builder("ids.client").queue("ids-other").id(id).build()))
                .isInstanceOfSatisfying(Pgvs3Exception.class, ex -> assertThat(ex.code()).isEqualTo(ErrorCode.DUPLICATE));
    }

    @Test
    void aClientIdCopyingAnotherQueuesGeneratedIdIsRefusedAndWritesNothing() {
        Job original = store.enqueue(NewJob.builder("ids.original").queue("ids-origin").build());
        store.enqueue(NewJob.builder("ids.warm").queue("ids-copy").build());
        long before = jdbc.queryForObject("SELECT count(*) FROM s3p.job_events", Long.class);

        for (NewJob copy : List.of(NewJob.builder("ids.copy").queue("ids-copy").id(original.id()).build(),
                NewJob.builder("ids.copy").queue("ids-origin").id(original.id()).build())) {
            assertThatThrownBy(() -> store.enqueue(copy)).isInstanceOfSatisfying(Pgvs3Exception.class,
                    ex -> assertThat(ex.code()).isEqualTo(ErrorCode.DUPLICATE));
            assertThatThrownBy(() -> store.enqueueBatch(List.of(NewJob.builder("ids.fresh").queue("ids-copy").build(),
                    copy))).isInstanceOfSatisfying(Pgvs3Exception.class,
                    ex -> assertThat(ex.code()).isEqualTo(ErrorCode.DUPLICATE));
            NewJob uniqueCopy = NewJob.builder("ids.copy").queue(copy.queue().value()).id(original.id())
                    .unique(new UniqueOptions(null, "k-" + copy.queue().value(), null, null, null)).build();
            assertThatThrownBy(() -> store.enqueue(uniqueCopy)).isInstanceOfSatisfying(Pgvs3Exception.class,
                    ex -> assertThat(ex.code()).isEqualTo(ErrorCode.DUPLICATE));
        }
        assertThat(jdbc.queryForObject("SELECT count(*) FROM s3p.job_locations() WHERE id = ?::uuid", Long.class,
                original.id())).isEqualTo(1);
        assertThat(jdbc.queryForObject("SELECT count(*) FROM \"s3q_ids-copy\".jobs", Long.class)).isEqualTo(1);
        assertThat(jdbc.queryForObject("SELECT count(*) FROM s3p.job_events", Long.class)).isEqualTo(before);
    }

    @Test
    void aClientIdUsedInAnotherQueueIsRefusedInTheQueueItsTagNames() {
        // a client id that carries the tag of queue ids-tagged, enqueued first elsewhere (so it has a locator row)
        store.enqueue(NewJob.builder("ids.warm").queue("ids-tagged").build());
        String id = JobIds.generate(QueueName.of("ids-tagged")).toString();
        store.enqueue(NewJob.builder("ids.first").queue("ids-elsewhere").id(id).build());
        assertThatThrownBy(() -> store.enqueue(NewJob.builder("ids.second").queue("ids-tagged").id(id).build()))
                .isInstanceOfSatisfying(Pgvs3Exception.class, ex -> assertThat(ex.code()).isEqualTo(ErrorCode.DUPLICATE));
        assertThat(store.get(id)).map(Job::queue).contains("ids-elsewhere");
    }

    @Test
    void anUpgradedCatalogKeepsFindingItsOldJobs() {
        HikariDataSource old = TestPostgres.get().newDatabase().newDataSource(3);
        try {
            // the catalog as the version before carrying tags made it, with a queue and a job in it
            JdbcTemplate oldJdbc = catalogBeforeV3(old);
            oldJdbc.queryForObject("SELECT s3p.ensure_queue_schema('upgraded')", String.class);
            UUID oldId = enqueueBeforeV3(oldJdbc, "upgraded");
            assertThat(oldJdbc.queryForObject("SELECT count(*) FROM s3p.job_locator", Long.class)).isEqualTo(1);

            new CatalogMigrator(old).migrate();

            QueueCatalog catalog = new QueueCatalog(oldJdbc);
            JobStore upgraded = new JobStore(oldJdbc, catalog, JobStoreSettings.DEFAULTS, new JobEventLog(oldJdbc, catalog));
            assertThat(oldJdbc.queryForObject("SELECT id_tag FROM s3p.queues WHERE name = 'upgraded'", Integer.class))
                    .isEqualTo(JobIds.tag("upgraded"));
            assertThat(upgraded.get(oldId.toString())).map(Job::type).contains("old.job");
            Job fresh = upgraded.enqueue(NewJob.builder("new.job").queue("upgraded").build());
            assertThat(oldJdbc.queryForObject("SELECT count(*) FROM s3p.job_locator", Long.class)).isEqualTo(1);
            assertThat(upgraded.fetch(List.of("upgraded"), 2, "w", Duration.ofMinutes(1))).hasSize(2);
            assertThat(upgraded.ack(oldId.toString(), "w", null).state()).isEqualTo(JobState.COMPLETED);
            assertThat(upgraded.ack(fresh.id(), "w", null).state()).isEqualTo(JobState.COMPLETED);
        }
        finally {
            old.close();
        }
    }
}
