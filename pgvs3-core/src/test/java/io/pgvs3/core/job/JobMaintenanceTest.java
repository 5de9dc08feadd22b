package io.pgvs3.core.job;

import java.time.Duration;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class JobMaintenanceTest extends JobStoreTestSupport {

    @Test
    void aQueueWhoseMaintenanceFailsDoesNotStallTheOtherQueues() {
        store.enqueue(NewJob.builder("test.broken").queue("a-broken").build());
        jdbc.update("UPDATE \"s3q_a-broken\".jobs SET state = 'scheduled', scheduled_at = now() - interval '1 minute'");
        jdbc.execute("""
                CREATE FUNCTION "s3q_a-broken".refuse() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN RAISE EXCEPTION 'this queue cannot be maintained'; END $$;
                CREATE TRIGGER refuse BEFORE UPDATE ON "s3q_a-broken".jobs FOR EACH ROW EXECUTE FUNCTION "s3q_a-broken".refuse();
                """);
        Job leased = store.enqueue(NewJob.builder("test.lease").queue("b-healthy").build());
        assertThat(store.fetch(List.of("b-healthy"), 1, "w", Duration.ofMillis(1))).hasSize(1);
        jdbc.update("UPDATE \"s3q_b-healthy\".jobs SET lease_until = now() - interval '1 second'");

        maintenance.maintain();

        assertThat(store.get(leased.id())).map(Job::state).contains(JobState.AVAILABLE);
    }

    @Test
    void oneIndexOfActiveJobsServesBothTimeoutsAndExpiredLeases() {
        Job timedOut = store.enqueue(withTimeout("test.timeout"));
        Job leaseEnded = store.enqueue(withTimeout("test.lease"));
        Job running = store.enqueue(withTimeout("test.running"));
        assertThat(store.fetch(List.of("active-ends"), 3, "w", Duration.ofHours(1))).hasSize(3);
        // the deadline of one job passed while its lease runs on; the lease of another ended before its deadline
        jdbc.update("UPDATE \"s3q_active-ends\".jobs SET deadline_at = now() - interval '1 second' WHERE id = ?::uuid",
                timedOut.id());
        jdbc.update("UPDATE \"s3q_active-ends\".jobs SET lease_until = now() - interval '1 second' WHERE id = ?::uuid",
                leaseEnded.id());

        maintenance.maintain();

        Job failed = store.get(timedOut.id()).orElseThrow();
        assertThat(failed.state()).isNotEqualTo(JobState.ACTIVE);
        assertThat(failed.error()).isNotNull();
        assertThat(failed.error().code()).isEqualTo("timeout");
        Job released = store.get(leaseEnded.id()).orElseThrow();
        assertThat(released.state()).isEqualTo(JobState.AVAILABLE);
        assertThat(released.error()).isNull();
        assertThat(store.get(running.id())).map(Job::state).contains(JobState.ACTIVE);
        assertThat(jdbc.queryForObject("SELECT count(*) FROM pg_indexes WHERE schemaname = 's3q_active-ends'"
                + " AND indexname IN ('jobs_lease', 'jobs_deadline')", Long.class)).isZero();
    }

    private static NewJob withTimeout(String type) {
        return NewJob.builder(type).queue("active-ends").timeout(Duration.ofHours(1)).build();
    }

    @Test
    void eventsWriteNoWalButTheirIdsSurviveACrashRestart() {
        assertThat(jdbc.queryForObject("SELECT relpersistence::text FROM pg_class WHERE oid = 's3p.job_events'::regclass",
                String.class)).isEqualTo("u");
        assertThat(jdbc.queryForObject("SELECT relpersistence::text FROM pg_class WHERE oid = 's3p.job_event_ids'::regclass",
                String.class)).isEqualTo("p");
        Job job = store.enqueue(NewJob.builder("test.events").queue("events").build());
        assertThat(events.events(Set.of(), Set.of("events"), 0, 10))
                .extracting(JobEvent::type).containsExactly("job.enqueued");
        assertThat(events.events(Set.of(), Set.of("events"), 0, 10).get(0).jobId()).isEqualTo(job.id());
    }

    @Test
    void locatorRowsOfAQueueDroppedElsewhereArePrunedAndLiveOnesKept() {
        Job live = store.enqueue(NewJob.builder("test.live").queue("locator-live").build());
        jdbc.update("INSERT INTO s3p.job_locator (id, queue) SELECT gen_random_uuid(), 'dropped-elsewhere'"
                + " FROM generate_series(1, 3)");

        maintenance.maintain();

        assertThat(jdbc.queryForObject("SELECT count(*) FROM s3p.job_locator WHERE queue = 'dropped-elsewhere'",
                Long.class)).isZero();
        assertThat(store.get(live.id())).isPresent();
    }

    @Test
    void eventsOlderThanTheirRetentionArePrunedAndRecentOnesKept() {
        Job old = store.enqueue(NewJob.builder("test.old").queue("events-retention").build());
        Job recent = store.enqueue(NewJob.builder("test.recent").queue("events-retention").build());
        // the log is pruned from its head in id order: the old job's event and every event before it are old
        jdbc.update("UPDATE s3p.job_events SET occurred_at = now() - interval '2 hours'"
                + " WHERE id <= (SELECT max(id) FROM s3p.job_events WHERE job_id = ?::uuid)", old.id());

        maintenance.maintain();

        assertThat(events.events(Set.of(), Set.of("events-retention"), 0, 10)).extracting(JobEvent::jobId)
                .containsExactly(recent.id());
    }

    @Test
    void eventsArePrunedOnlyUpToTheFirstOneWithinTheRetention() {
        Job first = store.enqueue(NewJob.builder("test.first").queue("events-head").build());
        Job young = store.enqueue(NewJob.builder("test.young").queue("events-head").build());
        Job behind = store.enqueue(NewJob.builder("test.behind").queue("events-head").build());
        // every event up to the first job's is old, the young job's is not, and the one behind it is old again (as
        // when a long transaction's event is inserted after younger ones)
        jdbc.update("UPDATE s3p.job_events SET occurred_at = now() - interval '2 hours'"
                + " WHERE id <= (SELECT max(id) FROM s3p.job_events WHERE job_id = ?::uuid) OR job_id = ?::uuid",
                first.id(), behind.id());

        maintenance.maintain();

        assertThat(events.events(Set.of(), Set.of("events-head"), 0, 10)).extracting(JobEvent::jobId)
                .containsExactly(young.id(), behind.id());

        jdbc.update("UPDATE s3p.job_events SET occurred_at = now() - interval '2 hours' WHERE job_id = ?::uuid",
                young.id());
        maintenance.maintain();

        assertThat(events.events(Set.of(), Set.of("events-head"), 0, 10)).isEmpty();
    }
}
