package io.pgvs3.spring.listener;

import java.util.concurrent.TimeUnit;

/**
 * Wakes the threads of one container. A thread reads {@link #generation()} before it fetches and, when the fetch
 * found nothing, waits for a newer generation; a wake-up that arrives while it fetches is therefore never lost.
 */
final class WakeUpSignal {

    private long generation;

    synchronized long generation() {
        return generation;
    }

    synchronized void signal() {
        generation++;
        notifyAll();
    }

    /** Waits until a signal newer than {@code seen} or until the timeout; true when signalled. */
    synchronized boolean await(long seen, long timeoutNanos) throws InterruptedException {
        long deadline = System.nanoTime() + timeoutNanos;
        while (generation == seen) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return false;
            }
            TimeUnit.NANOSECONDS.timedWait(this, left);
        }
        return true;
    }
}
