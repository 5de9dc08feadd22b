package io.pgvs3.bench.pgvs3;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

/**
 * An open-loop producer: operation {@code i} is due at {@code start + i / rate}; a few threads share the schedule
 * so that one slow commit does not delay the next message.
 */
public final class Paced {

    @FunctionalInterface
    public interface Operation {
        void run(long index) throws Exception;
    }

    private Paced() {
    }

    /** Runs {@code rate} operations per second for {@code duration}; answers how many ran. */
    public static long run(int ratePerSecond, Duration duration, int threads, Operation operation) throws Exception {
        long total = Math.max(1, ratePerSecond * duration.toMillis() / 1000);
        long intervalNanos = 1_000_000_000L / ratePerSecond;
        long start = System.nanoTime() + 20_000_000L;
        AtomicReference<Throwable> failure = new AtomicReference<>();
        List<Thread> running = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int first = t;
            Thread thread = new Thread(() -> {
                try {
                    for (long i = first; i < total && failure.get() == null; i += threads) {
                        long due = start + i * intervalNanos;
                        long wait;
                        while ((wait = due - System.nanoTime()) > 0) {
                            LockSupport.parkNanos(wait);
                        }
                        operation.run(i);
                    }
                }
                catch (Throwable ex) {
                    failure.compareAndSet(null, ex);
                }
            }, "bench-paced-" + t);
            thread.start();
            running.add(thread);
        }
        for (Thread thread : running) {
            thread.join();
        }
        if (failure.get() != null) {
            throw new IllegalStateException("A paced producer failed: " + failure.get(), failure.get());
        }
        return total;
    }
}
