package io.pgvs3.bench;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class JitWatchTest {

    private final AtomicLong nanos = new AtomicLong(1_000);
    private final AtomicLong compiled = new AtomicLong();

    private void advance(long millis, long compiling) {
        nanos.addAndGet(TimeUnit.MILLISECONDS.toNanos(millis));
        compiled.addAndGet(compiling);
    }

    @Test
    void settlesOnlyAfterAWholeQuietWindow() {
        JitWatch watch = new JitWatch(Duration.ZERO, compiled::get, nanos::get);
        advance(1_000, 0);
        assertThat(watch.settled()).as("the window has not ended").isFalse();
        advance(1_000, 0);
        assertThat(watch.settled()).isTrue();
    }

    @Test
    void aWindowWithMoreCompilationThanTheQuietShareIsNotSettled() {
        JitWatch watch = new JitWatch(Duration.ZERO, compiled::get, nanos::get);
        advance(2_000, 300);
        assertThat(watch.settled()).isFalse();
        advance(2_000, 41);
        assertThat(watch.settled()).as("41 ms of 2 s is above 2%").isFalse();
        advance(2_000, 40);
        assertThat(watch.settled()).isTrue();
    }

    @Test
    void aQuietWindowBeforeTheMinimumDoesNotSettle() {
        JitWatch watch = new JitWatch(Duration.ofSeconds(5), compiled::get, nanos::get);
        advance(2_000, 0);
        assertThat(watch.settled()).isFalse();
        advance(2_000, 0);
        assertThat(watch.settled()).isFalse();
        advance(2_000, 0);
        assertThat(watch.settled()).isTrue();
        assertThat(watch.elapsed()).isEqualTo(Duration.ofSeconds(6));
    }

    @Test
    void withoutCompilationTimeOnlyTheMinimumCounts() {
        JitWatch watch = new JitWatch(Duration.ofSeconds(1), () -> -1, nanos::get);
        advance(500, 0);
        assertThat(watch.settled()).isFalse();
        advance(500, 0);
        assertThat(watch.settled()).isTrue();
    }

    @Test
    void thisJvmSettlesWhenNothingRuns() throws Exception {
        JitWatch watch = new JitWatch(Duration.ZERO);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        boolean settled = false;
        while (!settled && System.nanoTime() < deadline) {
            Thread.sleep(50);
            settled = watch.settled();
        }
        assertThat(settled).isTrue();
        assertThat(watch.elapsed()).isGreaterThanOrEqualTo(JitWatch.WINDOW);
    }
}
