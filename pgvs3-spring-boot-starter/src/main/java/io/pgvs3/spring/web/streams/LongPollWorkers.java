package io.pgvs3.spring.web.streams;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.PriorityBlockingQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The long-poll's worker pool: waiters already under way (woken, at their deadline, probes) go before first
 * attempts still queued, so that an append's wake-up or a deadline does not wait for hundreds of receives that just
 * arrived; within each kind, work runs in the order submitted.
 */
final class LongPollWorkers {

    private final ExecutorService pool;
    private final AtomicLong sequence = new AtomicLong();

    LongPollWorkers(int threads) {
        this(threads, "pgvs3-long-poll-");
    }

    LongPollWorkers(int threads, String namePrefix) {
        this.pool = new ThreadPoolExecutor(threads, threads, 0, TimeUnit.MILLISECONDS, new PriorityBlockingQueue<>(),
                daemon(namePrefix));
    }

    /** Runs {@code body} on a worker; {@code first}: a waiter's first look, after the work already under way. */
    void submit(boolean first, Runnable body) {
        pool.execute(new Task(first ? 1 : 0, sequence.incrementAndGet(), body));
    }

    void shutdownNow() {
        pool.shutdownNow();
    }

    /** Whether the pool's threads ended within {@code millis} of a shutdown. */
    boolean awaitTermination(long millis) {
        try {
            return pool.awaitTermination(millis, TimeUnit.MILLISECONDS);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    static ThreadFactory daemon(String prefix) {
        AtomicInteger counter = new AtomicInteger();
        return runnable -> {
            Thread thread = new Thread(runnable, prefix + counter.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        };
    }

    /** A unit of work of the pool: by priority (0 before 1), then in the order submitted. */
    private record Task(int priority, long sequence, Runnable body) implements Runnable, Comparable<Task> {

        @Override
        public void run() {
            body.run();
        }

        @Override
        public int compareTo(Task other) {
            int byPriority = Integer.compare(priority, other.priority);
            return byPriority != 0 ? byPriority : Long.compare(sequence, other.sequence);
        }
    }
}
