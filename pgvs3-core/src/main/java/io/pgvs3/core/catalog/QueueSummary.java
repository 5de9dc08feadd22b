package io.pgvs3.core.catalog;

import java.time.Instant;

/** A queue namespace as the catalog records it. */
public record QueueSummary(String name, String schema, Instant createdAt) {
}
