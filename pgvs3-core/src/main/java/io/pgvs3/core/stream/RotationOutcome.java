package io.pgvs3.core.stream;

import java.util.Locale;

/** What one rotation attempt did. */
public enum RotationOutcome {

    /** The log moved to the next segment (truncating it first when it held events). */
    ROTATED,
    /** The current segment is younger than retention / 2. */
    NOT_DUE,
    /** An append, receive or reader held a lock; the next maintenance pass tries again. */
    BUSY,
    /** A consumer has not passed the events of the next segment, so the current segment keeps growing. */
    PINNED;

    static RotationOutcome of(String value) {
        return valueOf(value.toUpperCase(Locale.ROOT));
    }
}
