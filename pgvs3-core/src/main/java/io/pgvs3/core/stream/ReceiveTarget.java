package io.pgvs3.core.stream;

import io.pgvs3.core.catalog.QueueName;

/** Who receives from which queue: a consumer, or one member of a consumer ({@code member} null for none). */
public record ReceiveTarget(QueueName queue, String consumer, String member) {
}
