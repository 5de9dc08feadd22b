package io.pgvs3.core.stream;

import java.time.Instant;

/** An appended message: its id, its position in the log and when it was appended. */
public record AppendResult(String id, long seq, String type, Instant createdAt) {
}
