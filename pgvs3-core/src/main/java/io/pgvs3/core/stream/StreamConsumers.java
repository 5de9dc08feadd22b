package io.pgvs3.core.stream;

import java.util.Optional;

import io.pgvs3.core.catalog.QueueCatalog;
import io.pgvs3.core.catalog.QueueName;
import io.pgvs3.core.error.Pgvs3Exception;
import io.pgvs3.core.sql.QueueStatement;
import tools.jackson.databind.JsonNode;

import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The consumers of a queue's stream: subscribe (which creates the queue's namespace on first use), unsubscribe, and
 * their cursors, lag and outstanding batches as the HTTP binding shows them.
 */
public class StreamConsumers {

    private static final QueueStatement SUBSCRIBE = QueueStatement.of(
            "SELECT consumer, last_tick, created FROM {stream_subscribe}(?, ?, ?)");

    private static final QueueStatement UNSUBSCRIBE = QueueStatement.of("SELECT {stream_unsubscribe}(?)");

    private static final QueueStatement CONSUMERS = QueueStatement.of("SELECT {stream_consumers}()::text");

    private static final QueueStatement BATCH = QueueStatement.of("SELECT {stream_batch}(?)::text");

    private final StreamCalls calls;
    private final JdbcTemplate jdbc;

    public StreamConsumers(JdbcTemplate jdbc, QueueCatalog catalog) {
        this.calls = new StreamCalls(jdbc, catalog);
        this.jdbc = jdbc;
    }

    /**
     * Subscribes a consumer: at the latest tick when {@code fromTick} is null, at the oldest retained tick when it
     * is 0, else at that tick. An existing subscription is returned unchanged.
     */
    public Subscription subscribe(String queue, String consumer, Long fromTick) {
        return subscribe(queue, consumer, fromTick, false);
    }

    /**
     * Subscribes a consumer that receives only what commits from now on: a tick is made first when events
     * committed after the latest one. An existing subscription is returned unchanged.
     */
    public Subscription subscribeFromNow(String queue, String consumer) {
        return subscribe(queue, consumer, null, true);
    }

    private Subscription subscribe(String queue, String consumer, Long fromTick, boolean now) {
        QueueName name = QueueName.of(queue);
        StreamCalls.requireName(consumer, "consumer");
        if (fromTick != null && fromTick < 0) {
            throw Pgvs3Exception.invalidRequest("from_tick must not be negative", "from_tick");
        }
        return calls.creating(name, () -> jdbc.queryForObject(SUBSCRIBE.in(name.schema()),
                (rs, row) -> new Subscription(rs.getString(1), rs.getLong(2), rs.getBoolean(3)), consumer, fromTick,
                now));
    }

    /** Removes a consumer and its outstanding batches; false when there was no such consumer. */
    public boolean unsubscribe(String queue, String consumer) {
        QueueName name = QueueName.of(queue);
        return calls.existing(name, () -> Boolean.TRUE.equals(jdbc.queryForObject(
                UNSUBSCRIBE.in(name.schema()), Boolean.class, consumer)));
    }

    /** Consumers with cursors, lag and outstanding batches, as the HTTP binding shows them. */
    public JsonNode consumers(String queue) {
        QueueName name = QueueName.of(queue);
        return StreamCalls.json(calls.existing(name, () -> jdbc.queryForObject(
                CONSUMERS.in(name.schema()), String.class)));
    }

    /** An outstanding batch (including a cooperative batch acked out of order), or empty. */
    public Optional<JsonNode> batch(String queue, long batchId) {
        QueueName name = QueueName.of(queue);
        String text = calls.existing(name, () -> jdbc.queryForObject(
                BATCH.in(name.schema()), String.class, batchId));
        return Optional.ofNullable(text).map(StreamCalls::json);
    }
}
