package io.pgvs3.core.job;

import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

import io.pgvs3.core.error.ErrorCode;
import io.pgvs3.core.error.Pgvs3Exception;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Unique jobs under concurrent enqueues of one key, and cron firing with two maintenance runners on one database.
 */
class UniqueAndCronConcurrencyTest extends JobStoreTestSupport {

    @Test
    void concurrentEnqueuesOfOneUniqueKeyCreateExactlyOneJob() throws Exception {
        UniqueOptions unique = new UniqueOptions(List.of("type", "args"), null, null, null, "reject");
        AtomicInteger created = new AtomicInteger();
        AtomicInteger rejected = new AtomicInteger();
        List<Callable<Void>> clients = new ArrayList<>();
        for (int i = 0; i < 24; i++) {
            clients.add(() -> {
                try {
                    store.enqueue(NewJob.builder("test.unique").args("[{\"order\":42}]").queue("unique")
                            .unique(unique).build());
                    created.incrementAndGet();
                }
                catch (Pgvs3Exception ex) {
                    assertThat(ex.code()).isEqualTo(ErrorCode.DUPLICATE);
                    rejected.incrementAndGet();
                }
                return null;
            });
        }
        runTogether(clients);
        assertThat(created).hasValue(1);
        assertThat(rejected).hasValue(23);
        assertThat(jdbc.queryForObject("SELECT count(*) FROM s3q_unique.jobs", Long.class)).isEqualTo(1);
    }

    @Test
    void ignoreAnswersTheExistingJobAndReplaceCancelsIt() {
        UniqueOptions ignore = new UniqueOptions(List.of("type"), null, null, null, "ignore");
        Job first = store.enqueue(NewJob.builder("test.ignore").queue("unique-modes").unique(ignore).build());
        EnqueueOutcome again = store.enqueueOrGet(NewJob.builder("test.ignore").queue("unique-modes").unique(ignore).build());
        assertThat(again.created()).isFalse();
        assertThat(again.job().id()).isEqualTo(first.id());

        UniqueOptions replace = new UniqueOptions(List.of("type"), null, null, null, "replace");
        Job old = store.enqueue(NewJob.builder("test.replace").queue("unique-modes").unique(replace).build());
        Job fresh = store.enqueue(NewJob.builder("test.replace").queue("unique-modes").unique(replace).build());
        assertThat(fresh.id()).isNotEqualTo(old.id());
        assertThat(store.get(old.id()).orElseThrow().state()).isEqualTo(JobState.CANCELLED);

        UniqueOptions reject = new UniqueOptions(List.of("type"), null, null, Set.of("available"), "reject");
        Job only = store.enqueue(NewJob.builder("test.states").queue("unique-modes").unique(reject).build());
        assertThatThrownBy(() -> store.enqueue(NewJob.builder("test.states").queue("unique-modes").unique(reject).build()))
                .isInstanceOf(Pgvs3Exception.class);
        store.fetch(List.of("unique-modes"), 10, "w", null);
        store.ack(only.id(), null);
        assertThat(store.enqueue(NewJob.builder("test.states").queue("unique-modes").unique(reject).build()).state())
                .isEqualTo(JobState.AVAILABLE);
    }

    @Test
    void twoMaintenanceRunnersFireEachCronOccurrenceExactlyOnce() throws Exception {
        JsonMapper mapper = JsonMapper.builder().build();
        CronStore first = new CronStore(jdbc, store, template -> NewJob.builder(template.get("type").asString())
                .queue("crons").build());
        CronStore second = new CronStore(new JdbcTemplate(dataSource), store,
                template -> NewJob.builder(template.get("type").asString()).queue("crons").build());
        first.register("every-minute", "* * * * *", "UTC", "allow",
                mapper.readTree("{\"type\":\"test.cron\",\"args\":[]}"));
        int occurrences = 5;
        for (int occurrence = 0; occurrence < occurrences; occurrence++) {
            // make the cron due, as if its minute had come, then let both runners race for it
            jdbc.update("UPDATE s3p.crons SET next_run_at = now() - interval '1 second' WHERE name = 'every-minute'");
            CountDownLatch start = new CountDownLatch(1);
            ExecutorService pool = Executors.newFixedThreadPool(2);
            try {
                Future<Long> a = pool.submit(() -> {
                    start.await();
                    return first.fireDue();
                });
                Future<Long> b = pool.submit(() -> {
                    start.await();
                    return second.fireDue();
                });
                start.countDown();
                assertThat(a.get() + b.get()).isEqualTo(1);
            }
            finally {
                pool.shutdownNow();
            }
        }
        assertThat(jdbc.queryForObject("SELECT count(*) FROM s3q_crons.jobs", Long.class)).isEqualTo(occurrences);
        Instant next = first.get("every-minute").orElseThrow().nextRunAt();
        assertThat(next).isAfter(Instant.now());
    }

    @Test
    void aMissedOccurrenceFiresOnceAndTheNextRunIsInTheFuture() {
        CronStore crons = new CronStore(jdbc, store, template -> NewJob.builder("test.missed").queue("missed").build());
        crons.register("missed", "* * * * *", "UTC", "allow", JsonMapper.builder().build().readTree("{\"type\":\"x.y\"}"));
        jdbc.update("UPDATE s3p.crons SET next_run_at = now() - interval '3 hours' WHERE name = 'missed'");
        assertThat(crons.fireDue()).isEqualTo(1);
        assertThat(crons.fireDue()).isZero();
        assertThat(jdbc.queryForObject("SELECT count(*) FROM s3q_missed.jobs", Long.class)).isEqualTo(1);
    }

    @Test
    void cronSchedulesFollowFieldsMacrosAndTimeZones() {
        Instant base = Instant.parse("2026-03-10T10:17:30Z");
        assertThat(CronSchedule.parse("*/5 * * * *", "UTC").next(base)).isEqualTo(Instant.parse("2026-03-10T10:20:00Z"));
        assertThat(CronSchedule.parse("@hourly", null).next(base)).isEqualTo(Instant.parse("2026-03-10T11:00:00Z"));
        assertThat(CronSchedule.parse("@daily", "UTC").next(base)).isEqualTo(Instant.parse("2026-03-11T00:00:00Z"));
        assertThat(CronSchedule.parse("@weekly", "UTC").next(base)).isEqualTo(Instant.parse("2026-03-15T00:00:00Z"));
        assertThat(CronSchedule.parse("0 9 * * MON-FRI", "Asia/Tokyo").next(base))
                .isEqualTo(ZonedDateTime.of(2026, 3, 11, 9, 0, 0, 0, ZoneId.of("Asia/Tokyo")).toInstant());
        for (String invalid : List.of("not a valid cron", "0 0 0 0 0 0 0", "99 25 32 13 8", "*/0 * * * *", "5-1 * * * *")) {
            assertThatThrownBy(() -> CronSchedule.parse(invalid, "UTC").next(base)).as(invalid)
                    .isInstanceOf(Pgvs3Exception.class);
        }
        assertThat(Duration.between(base, CronSchedule.parse("* * * * *", "UTC").next(base))).isEqualTo(Duration.ofSeconds(30));
    }
}
