package io.pgvs3.core.stream;

import java.time.Instant;

/**
 * An appended message: its id, its position in the log and when it was appended. A {@code duplicate} stored nothing:
 * its dedupe key was appended within the queue's dedupe window, and it carries that first append's id, position,
 * type and time.
 */
public record AppendResult(String id, long seq, String type, Instant createdAt, boolean duplicate) {

    public AppendResult(String id, long seq, String type, Instant createdAt) {
        this(id, seq, type, createdAt, false);
    }
}
