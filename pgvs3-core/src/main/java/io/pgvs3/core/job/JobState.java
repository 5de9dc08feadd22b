package io.pgvs3.core.job;

import java.util.Locale;

/**
 * The eight OJS job states. {@code completed}, {@code cancelled} and {@code discarded} are terminal.
 */
public enum JobState {

    SCHEDULED, AVAILABLE, PENDING, ACTIVE, COMPLETED, RETRYABLE, CANCELLED, DISCARDED;

    /** The wire value, e.g. {@code available}. */
    public String wireValue() {
        return name().toLowerCase(Locale.ROOT);
    }

    public boolean isTerminal() {
        return this == COMPLETED || this == CANCELLED || this == DISCARDED;
    }

    public static JobState fromWire(String value) {
        return valueOf(value.toUpperCase(Locale.ROOT));
    }
}
