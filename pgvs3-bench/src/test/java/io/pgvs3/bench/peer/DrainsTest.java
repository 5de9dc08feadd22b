package io.pgvs3.bench.peer;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class DrainsTest {

    @Test
    void batchRateTimesWholeCallsAndAtLeastTheFewestCalls() throws Exception {
        PeerWorkload workload = new PeerWorkload(Duration.ZERO, Duration.ofMillis(1), 5, 0, Duration.ZERO,
                Duration.ZERO, 1, Duration.ZERO, "{}");
        AtomicInteger calls = new AtomicInteger();

        double rate = Drains.batchRate(workload, () -> {
            calls.incrementAndGet();
            Thread.sleep(20);
            return 1000;
        });

        // one warm-up call, then five measured ones of at least 20 ms each: at most 1000 / 0.020 s
        assertThat(calls.get()).isEqualTo(6);
        assertThat(rate).isGreaterThan(0).isLessThanOrEqualTo(50_000);
    }
}
