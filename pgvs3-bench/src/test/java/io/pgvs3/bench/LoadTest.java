package io.pgvs3.bench;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class LoadTest {

    @Test
    void drainStopsWhenAllItemsAreDone() throws Exception {
        AtomicLong left = new AtomicLong(1_000);
        Load.Drained drained = Load.drain(4, 1_000, Duration.ofSeconds(10),
                index -> () -> left.getAndUpdate(n -> Math.max(0, n - 10)) > 0 ? 10 : 0);
        assertThat(left.get()).isZero();
        assertThat(drained.complete()).isTrue();
        assertThat(drained.rate()).isPositive();
    }

    @Test
    void drainReportsWhatWasDoneWithinTheLimit() throws Exception {
        Load.Drained drained = Load.drain(2, 1_000_000, Duration.ofMillis(200), index -> () -> {
            Thread.sleep(10);
            return 1;
        });
        assertThat(drained.complete()).isFalse();
        assertThat(drained.items()).isBetween(10L, 100L);
        assertThat(drained.seconds()).isGreaterThanOrEqualTo(0.2);
        assertThat(drained.describe()).contains("time limit");
    }

    @Test
    void drainEndsOnceItHasDoneEnough() throws Exception {
        AtomicLong asked = new AtomicLong();
        Load.Drained drained = Load.drain(2, 1_000_000, Duration.ofSeconds(10), () -> asked.incrementAndGet() > 20,
                index -> () -> {
                    Thread.sleep(1);
                    return 1;
                });
        assertThat(drained.complete()).isFalse();
        assertThat(drained.seconds()).isLessThan(5);
        assertThat(asked.get()).isEqualTo(21);
    }

    @Test
    void drainCountsTheStepsUnderWayWhenItEnded() throws Exception {
        AtomicLong taken = new AtomicLong();
        Load.Drained drained = Load.drain(4, 1_000_000, Duration.ofMillis(100), index -> () -> {
            // a step takes its items at once and reports them later, as a fetch does before its acks
            taken.addAndGet(5);
            Thread.sleep(20);
            return 5;
        });
        assertThat(drained.settled()).isEqualTo(taken.get());
        assertThat(drained.settled()).isGreaterThan(drained.items());
    }

    @Test
    void drainRunsItsEndHookBeforeTheWorkersClose() throws Exception {
        AtomicLong closed = new AtomicLong();
        AtomicLong closedWhenDone = new AtomicLong(-1);
        Load.drain(3, 30, Duration.ofSeconds(10), index -> new Load.Worker() {
            @Override
            public long step() {
                return 1;
            }

            @Override
            public void close() {
                closed.incrementAndGet();
            }
        }, () -> closedWhenDone.set(closed.get()));
        assertThat(closedWhenDone.get()).isZero();
        assertThat(closed.get()).isEqualTo(3);
    }

    @Test
    void aFailingWorkerFailsTheMeasurement() {
        assertThatThrownBy(() -> Load.rate(2, Duration.ofMillis(50), Duration.ofMillis(50), index -> () -> {
            throw new IllegalStateException("boom");
        })).hasMessageContaining("boom");
    }
}
