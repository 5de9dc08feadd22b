package io.pgvs3.spring.web.streams;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * Gathers the waiters that need one kind of look (an idle check, an append probe) and hands them to {@code look} in
 * chunks, so that one statement answers for all that arrived meanwhile. At most {@code maxRunners} looks run at a
 * time; each runner takes chunks, in arrival order, until none is left. A waiter added again before its look is
 * taken once; a removed one is skipped.
 */
final class WaiterBatcher<T> {

    private final int maxRunners;
    private final int chunkSize;
    private final Consumer<Runnable> runner;
    private final Consumer<List<T>> look;
    private final ConcurrentLinkedQueue<T> arrivals = new ConcurrentLinkedQueue<>();
    /** The waiters in {@link #arrivals} still to look at; an arrival not in here was removed or already taken. */
    private final Set<T> waiting = ConcurrentHashMap.newKeySet();
    private final AtomicInteger running = new AtomicInteger();

    /**
     * @param maxRunners most looks at a time
     * @param chunkSize  most waiters one look takes
     * @param runner     runs a runner's body (on the long-poll's workers)
     * @param look       the look at one chunk of waiters
     */
    WaiterBatcher(int maxRunners, int chunkSize, Consumer<Runnable> runner, Consumer<List<T>> look) {
        this.maxRunners = maxRunners;
        this.chunkSize = chunkSize;
        this.runner = runner;
        this.look = look;
    }

    void add(T waiter) {
        if (waiting.add(waiter)) {
            arrivals.add(waiter);
        }
        startRunner();
    }

    /** Skips the waiter if it is still to be looked at. */
    void remove(T waiter) {
        waiting.remove(waiter);
    }

    private void startRunner() {
        int active = running.get();
        while (active < maxRunners && !waiting.isEmpty()) {
            if (running.compareAndSet(active, active + 1)) {
                runner.accept(this::lookAtAll);
                return;
            }
            active = running.get();
        }
    }

    private void lookAtAll() {
        try {
            List<T> chunk = new ArrayList<>();
            do {
                chunk.clear();
                T next;
                while (chunk.size() < chunkSize && (next = arrivals.poll()) != null) {
                    if (waiting.remove(next)) {
                        chunk.add(next);
                    }
                }
                if (!chunk.isEmpty()) {
                    look.accept(chunk);
                }
            }
            while (!chunk.isEmpty());
        }
        finally {
            running.decrementAndGet();
            // a waiter added just as this runner found none left
            startRunner();
        }
    }
}
