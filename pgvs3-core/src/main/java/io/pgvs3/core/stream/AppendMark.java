package io.pgvs3.core.stream;

import io.pgvs3.core.catalog.QueueName;

/**
 * Where a receive on {@code queue} looked from: a PostgreSQL snapshot ({@code pg_snapshot} text) taken before the
 * receive read anything. Every event appended to the queue that this snapshot does not show as committed may be
 * unseen by that receive; {@link StreamIdleChecks#appendedSince} tells whether any such event has committed since.
 */
public record AppendMark(QueueName queue, String snapshot) {
}
