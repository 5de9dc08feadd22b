package io.pgvs3.bench.pgvs3;

import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

import io.pgvs3.bench.Latency;

/**
 * Measures from the moment a producer saw its append or enqueue commit to the moment a handler was entered for
 * the same message. Either side may come first; the second one records the difference.
 */
public final class LatencyProbe {

    private final ConcurrentHashMap<String, Mark> pending = new ConcurrentHashMap<>();
    private final Latency latency = new Latency();
    private final AtomicLong committed = new AtomicLong();
    private final AtomicLong entered = new AtomicLong();

    private record Mark(long nanos, boolean commit) {
    }

    public void committed(String id, long nanos) {
        committed.incrementAndGet();
        match(id, new Mark(nanos, true));
    }

    public void entered(String id) {
        long now = System.nanoTime();
        entered.incrementAndGet();
        match(id, new Mark(now, false));
    }

    private void match(String id, Mark mark) {
        pending.compute(id, (key, other) -> {
            if (other == null) {
                return mark;
            }
            long commit = mark.commit() ? mark.nanos() : other.nanos();
            long entry = mark.commit() ? other.nanos() : mark.nanos();
            latency.recordNanos(Math.max(0, entry - commit));
            return null;
        });
    }

    /** Forgets everything measured so far (after a warm-up). */
    public void reset() {
        pending.clear();
        latency.reset();
        committed.set(0);
        entered.set(0);
    }

    public long handled() {
        return entered.get();
    }

    public Latency latency() {
        return latency;
    }

    /** Waits until every committed message was handled. */
    public void awaitAllHandled(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (entered.get() < committed.get()) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("Only " + entered.get() + " of " + committed.get()
                        + " messages reached their handler within " + timeout);
            }
            Thread.sleep(5);
        }
    }
}
