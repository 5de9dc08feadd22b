package io.pgvs3.spring.listener;

import java.time.Duration;
import java.util.Arrays;

/**
 * The {@link Acknowledgment} handed to one call of a manual listener: records what the method decided for each
 * message it was given, for the container to carry out once the method returned.
 */
final class ManualAcknowledgment implements Acknowledgment {

    private final Duration[] nacks;
    private boolean decided;

    ManualAcknowledgment(int size) {
        this.nacks = new Duration[size];
    }

    @Override
    public synchronized void acknowledge() {
        decided = true;
    }

    @Override
    public synchronized void nack(Duration delay) {
        requireDelay(delay);
        Arrays.fill(nacks, delay);
        decided = true;
    }

    @Override
    public synchronized void nack(int index, Duration delay) {
        requireDelay(delay);
        if (index < 0 || index >= nacks.length) {
            throw new IndexOutOfBoundsException("index " + index + " is not in a batch of " + nacks.length);
        }
        nacks[index] = delay;
        decided = true;
    }

    private static void requireDelay(Duration delay) {
        if (delay == null || delay.isNegative()) {
            throw new IllegalArgumentException("a nack's delay must not be negative");
        }
    }

    synchronized boolean isDecided() {
        return decided;
    }

    /** The nack delay of the message at {@code index}, or null when it is acknowledged. */
    synchronized Duration nackDelay(int index) {
        return nacks[index];
    }
}
