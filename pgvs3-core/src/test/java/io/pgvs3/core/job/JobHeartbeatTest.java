package io.pgvs3.core.job;

import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class JobHeartbeatTest extends JobStoreTestSupport {

    @Test
    void extendsTheLeasesOfTheWorkersActiveJobsOnly() {
        String queue = queue();
        Job first = enqueue(queue);
        Job second = enqueue(queue);
        Job theirs = enqueue(queue);
        Job waiting = enqueue(queue);
        assertThat(store.fetch(List.of(queue), 2, "me", Duration.ofSeconds(5))).hasSize(2);
        assertThat(store.fetch(List.of(queue), 1, "them", Duration.ofSeconds(5))).hasSize(1);
        OffsetDateTime before = leaseUntil(first);

        HeartbeatResult result = store.heartbeat("me", List.of(first.id(), second.id(), theirs.id(), waiting.id(),
                UUID.randomUUID().toString(), "not-a-job-id"), Duration.ofMinutes(10));

        assertThat(result.directive()).isEqualTo(HeartbeatResult.RUNNING);
        assertThat(result.extendedJobIds()).containsExactlyInAnyOrder(first.id(), second.id());
        assertThat(leaseUntil(first)).isAfter(before.plus(Duration.ofMinutes(9)));
        assertThat(leaseUntil(theirs)).isBefore(before.plus(Duration.ofMinutes(1)));
    }

    /**
     * A job locked by another transaction (its ack, say) is skipped instead of waited for: a heartbeat that waited
     * while holding the leases it had already extended would deadlock with a batch ack taking them in another order.
     */
    @Test
    void skipsAJobAnotherTransactionHoldsInsteadOfWaitingForIt() throws Exception {
        String queue = queue();
        Job locked = enqueue(queue);
        Job free = enqueue(queue);
        assertThat(store.fetch(List.of(queue), 2, "me", Duration.ofSeconds(30))).hasSize(2);

        try (Connection other = dataSource.getConnection()) {
            other.setAutoCommit(false);
            try (Statement statement = other.createStatement()) {
                statement.execute("SELECT 1 FROM \"s3q_" + queue + "\".jobs WHERE id = '" + locked.id() + "' FOR UPDATE");
            }
            HeartbeatResult result = CompletableFuture
                    .supplyAsync(() -> store.heartbeat("me", List.of(locked.id(), free.id()), Duration.ofMinutes(10)))
                    .get(10, TimeUnit.SECONDS);
            assertThat(result.extendedJobIds()).containsExactly(free.id());
            other.rollback();
        }

        assertThat(store.heartbeat("me", List.of(locked.id()), Duration.ofMinutes(10)).extendedJobIds())
                .containsExactly(locked.id());
    }

    private Job enqueue(String queue) {
        return store.enqueue(NewJob.builder("test.heartbeat").queue(queue).build());
    }

    private static String queue() {
        return "heartbeat-" + UUID.randomUUID().toString().substring(0, 8);
    }

    private OffsetDateTime leaseUntil(Job job) {
        return jdbc.queryForObject("SELECT lease_until FROM \"s3q_" + job.queue() + "\".jobs WHERE id = ?::uuid",
                OffsetDateTime.class, job.id());
    }
}
