package io.pgvs3.core.stream;

import java.time.Duration;

import io.pgvs3.core.catalog.QueueCatalog;
import io.pgvs3.core.catalog.QueueName;
import io.pgvs3.core.error.Pgvs3Exception;
import io.pgvs3.core.sql.QueueStatement;
import tools.jackson.databind.JsonNode;

import org.springframework.jdbc.core.JdbcTemplate;

/** The dead letters of a queue's stream: listed, replayed into the log, purged. */
public class StreamDeadLetters {

    private static final QueueStatement LIST = QueueStatement.of("SELECT {stream_dead_letter_list}(?, ?)::text");

    private static final QueueStatement REPLAY_ONE = QueueStatement.of("SELECT {stream_dlq_replay}(?)");

    private static final QueueStatement REPLAY_ALL = QueueStatement.of("SELECT {stream_dlq_replay}(NULL)");

    private static final QueueStatement PURGE = QueueStatement.of("SELECT {stream_dlq_purge}(?)");

    private final StreamCalls calls;
    private final JdbcTemplate jdbc;

    public StreamDeadLetters(JdbcTemplate jdbc, QueueCatalog catalog) {
        this.calls = new StreamCalls(jdbc, catalog);
        this.jdbc = jdbc;
    }

    /** Dead letters, oldest first: {@code {dead_letters:[…], total}}. */
    public JsonNode deadLetters(String queue, int limit, int offset) {
        QueueName name = QueueName.of(queue);
        return StreamCalls.json(calls.existing(name, () -> jdbc.queryForObject(
                LIST.in(name.schema()), String.class, limit, offset)));
    }

    /** Appends one dead letter to the log again with a reset retry count; false when there is no such letter. */
    public boolean replayDeadLetter(String queue, long deadLetterId) {
        QueueName name = QueueName.of(queue);
        return calls.existing(name, () -> jdbc.queryForObject(
                REPLAY_ONE.in(name.schema()), Integer.class, deadLetterId)) > 0;
    }

    /** Appends every dead letter to the log again; returns how many. */
    public int replayDeadLetters(String queue) {
        QueueName name = QueueName.of(queue);
        return calls.existing(name, () -> jdbc.queryForObject(REPLAY_ALL.in(name.schema()), Integer.class));
    }

    /** Deletes dead letters older than {@code olderThan}; returns how many. */
    public int purgeDeadLetters(String queue, Duration olderThan) {
        QueueName name = QueueName.of(queue);
        if (olderThan == null || olderThan.isNegative()) {
            throw Pgvs3Exception.invalidRequest("older_than must not be negative", "older_than");
        }
        return calls.existing(name, () -> jdbc.queryForObject(
                PURGE.in(name.schema()), Integer.class, StreamCalls.interval(olderThan)));
    }
}
