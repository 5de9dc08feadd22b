package io.pgvs3.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BooleanSupplier;

/**
 * A plain closed-loop load generator: a number of threads, each with a worker of its own, call it as fast as they
 * can; a worker's step returns how many items it completed.
 */
public final class Load {

    private Load() {
    }

    /** One thread's share of the load; it owns its resources (connection, client) and closes them. */
    public interface Worker extends AutoCloseable {

        /** Does one unit of work and answers how many items it completed (0 when it found nothing to do). */
        long step() throws Exception;

        @Override
        default void close() throws Exception {
        }
    }

    @FunctionalInterface
    public interface WorkerFactory {
        Worker create(int index) throws Exception;
    }

    /** The longest warm-up of a {@link #rate} window that waits for the JIT compilers. */
    static final Duration RATE_WARM_UP_LIMIT = Duration.ofSeconds(20);

    /**
     * Items per second over {@code measure}, after a warm-up of the same load: at least {@code warmup} and until the
     * JIT compilers have settled ({@link JitWatch}), at most {@link #RATE_WARM_UP_LIMIT}. A warm-up under a second (a
     * smoke run's) is just that long.
     */
    public static double rate(int threads, Duration warmup, Duration measure, WorkerFactory factory) throws Exception {
        LongAdder done = new LongAdder();
        try (Threads running = Threads.start(threads, factory, done, () -> false)) {
            running.awaitReady();
            if (warmup.compareTo(Duration.ofSeconds(1)) < 0) {
                Thread.sleep(warmup.toMillis());
            }
            else {
                JitWatch jit = new JitWatch(warmup);
                long deadline = System.nanoTime() + RATE_WARM_UP_LIMIT.toNanos();
                while (!jit.settled() && System.nanoTime() < deadline) {
                    running.check();
                    Thread.sleep(50);
                }
            }
            running.check();
            long before = done.sum();
            long start = System.nanoTime();
            Thread.sleep(measure.toMillis());
            long after = done.sum();
            double seconds = (System.nanoTime() - start) / 1e9;
            running.check();
            return (after - before) / seconds;
        }
    }

    /**
     * Runs until {@code total} items are done or {@code limit} has passed, whichever comes first; workers that find
     * nothing to do back off briefly, so a backlog being drained by several threads finishes cleanly.
     */
    public static Drained drain(int threads, long total, Duration limit, WorkerFactory factory) throws Exception {
        return drain(threads, total, limit, factory, () -> { });
    }

    /** Like {@link #drain(int, long, Duration, WorkerFactory)}, running {@code whenDone} before the threads end. */
    public static Drained drain(int threads, long total, Duration limit, WorkerFactory factory, Runnable whenDone)
            throws Exception {
        return drain(threads, total, limit, () -> false, factory, whenDone);
    }

    /**
     * Like {@link #drain(int, long, Duration, WorkerFactory)}, ending early once {@code enough} answers true (asked
     * about every millisecond): a warm-up that lasts until the JIT has settled.
     */
    public static Drained drain(int threads, long total, Duration limit, BooleanSupplier enough,
            WorkerFactory factory) throws Exception {
        return drain(threads, total, limit, enough, factory, () -> { });
    }

    private static Drained drain(int threads, long total, Duration limit, BooleanSupplier enough,
            WorkerFactory factory, Runnable whenDone) throws Exception {
        LongAdder done = new LongAdder();
        long items;
        double seconds;
        try (Threads running = Threads.start(threads, factory, done, () -> done.sum() >= total)) {
            running.awaitReady();
            long start = System.nanoTime();
            long deadline = start + limit.toNanos();
            while (done.sum() < total && System.nanoTime() < deadline && !enough.getAsBoolean()) {
                running.check();
                Thread.sleep(1);
            }
            items = Math.min(total, done.sum());
            seconds = (System.nanoTime() - start) / 1e9;
            whenDone.run();
            running.check();
        }
        // every thread has stopped now: the steps that were under way when the drain ended are counted too
        return new Drained(items, total, seconds, done.sum());
    }

    /**
     * What a drain did.
     *
     * @param items   items done within the limit
     * @param total   items there were
     * @param seconds time taken
     * @param settled items done once every worker had stopped, including the steps under way at the end: what a
     *                later drain of the same backlog no longer finds
     */
    public record Drained(long items, long total, double seconds, long settled) {

        public Drained(long items, long total, double seconds) {
            this(items, total, seconds, items);
        }

        public double rate() {
            return items == 0 ? 0 : items / seconds;
        }

        public boolean complete() {
            return items >= total;
        }

        /** For the settings column: what was drained, in how long. */
        public String describe() {
            return (complete() ? "drained " + total : "drained " + items + " of " + total + " (time limit)")
                    + String.format(" in %.1f s", seconds);
        }
    }

    private interface Finished {
        boolean now();
    }

    private static final class Threads implements AutoCloseable {

        private final List<Thread> threads = new ArrayList<>();
        private final AtomicBoolean stop = new AtomicBoolean();
        private final AtomicReference<Throwable> failure = new AtomicReference<>();
        private final CountDownLatch ready;
        private final CountDownLatch go = new CountDownLatch(1);

        private Threads(int count) {
            this.ready = new CountDownLatch(count);
        }

        static Threads start(int count, WorkerFactory factory, LongAdder done, Finished finished) {
            Threads running = new Threads(count);
            for (int i = 0; i < count; i++) {
                int index = i;
                Thread thread = new Thread(() -> running.work(index, factory, done, finished), "bench-load-" + i);
                thread.setDaemon(true);
                running.threads.add(thread);
                thread.start();
            }
            return running;
        }

        private void work(int index, WorkerFactory factory, LongAdder done, Finished finished) {
            try (Worker worker = factory.create(index)) {
                ready.countDown();
                go.await();
                // a thread outlives the end of a drain until the load is closed, so its CPU time can still be read
                while (!stop.get()) {
                    long items = finished.now() ? 0 : worker.step();
                    if (items > 0) {
                        done.add(items);
                    }
                    else {
                        Thread.sleep(1);
                    }
                }
            }
            catch (Throwable ex) {
                failure.compareAndSet(null, ex);
                ready.countDown();
            }
        }

        void awaitReady() throws Exception {
            ready.await();
            check();
            go.countDown();
        }

        void check() {
            Throwable ex = failure.get();
            if (ex != null) {
                throw new IllegalStateException("A load thread failed: " + ex, ex);
            }
        }

        @Override
        public void close() throws InterruptedException {
            stop.set(true);
            go.countDown();
            for (Thread thread : threads) {
                thread.join(30_000);
            }
        }
    }
}
