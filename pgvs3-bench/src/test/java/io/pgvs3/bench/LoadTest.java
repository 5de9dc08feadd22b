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
        double rate = Load.drain(4, 1_000, Duration.ofSeconds(10), index -> () -> left.getAndUpdate(n -> Math.max(0, n - 10)) > 0 ? 10 : 0);
        assertThat(left.get()).isZero();
        assertThat(rate).isPositive();
    }

    @Test
    void aFailingWorkerFailsTheMeasurement() {
        assertThatThrownBy(() -> Load.rate(2, Duration.ofMillis(50), Duration.ofMillis(50), index -> () -> {
            throw new IllegalStateException("boom");
        })).hasMessageContaining("boom");
    }
}
