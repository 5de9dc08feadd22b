package io.pgvs3.core.stream;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;

import io.pgvs3.core.catalog.QueueCatalog;
import io.pgvs3.core.catalog.QueueName;
import io.pgvs3.core.error.Pgvs3Exception;
import io.pgvs3.core.sql.QueueStatement;
import tools.jackson.databind.JsonNode;

import org.springframework.jdbc.core.JdbcTemplate;

/** A queue's stream as a whole: its counts and watermarks, and its settings (max retries, retention, dedupe window). */
public class StreamQueueSettings {

    private static final QueueStatement INFO = QueueStatement.of("SELECT {stream_info}()::text");

    private static final QueueStatement CONFIG = QueueStatement.of(
            "SELECT max_retries, extract(epoch FROM retention),"
                    + " extract(epoch FROM least(dedupe_window, retention)) FROM {stream_config}");

    private static final QueueStatement SET_CONFIG = QueueStatement.of(
            "SELECT max_retries, extract(epoch FROM retention), extract(epoch FROM dedupe_window) FROM "
                    + "{stream_set_config}(?, ?, ?)");

    private final StreamCalls calls;
    private final JdbcTemplate jdbc;

    public StreamQueueSettings(JdbcTemplate jdbc, QueueCatalog catalog) {
        this.calls = new StreamCalls(jdbc, catalog);
        this.jdbc = jdbc;
    }

    /** Stream counts, watermarks, the current segment and the rotation period. */
    public JsonNode info(String queue) {
        QueueName name = QueueName.of(queue);
        return StreamCalls.json(calls.existing(name, () -> jdbc.queryForObject(INFO.in(name.schema()), String.class)));
    }

    public StreamConfig config(String queue) {
        QueueName name = QueueName.of(queue);
        return calls.existing(name, () -> jdbc.queryForObject(CONFIG.in(name.schema()), StreamQueueSettings::config));
    }

    /** Updates the settings that are not null and returns the result. */
    public StreamConfig updateConfig(String queue, Integer maxRetries, Duration retention) {
        return updateConfig(queue, maxRetries, retention, null);
    }

    /**
     * Updates the settings that are not null and returns the result. A dedupe window given here must not exceed the
     * retention; a shorter retention is always accepted and caps the window in effect (the one returned).
     */
    public StreamConfig updateConfig(String queue, Integer maxRetries, Duration retention, Duration dedupeWindow) {
        QueueName name = QueueName.of(queue);
        if (maxRetries != null && (maxRetries < 0 || maxRetries > 1000)) {
            throw Pgvs3Exception.invalidRequest("max_retries must be between 0 and 1000", "max_retries");
        }
        if (retention != null && (retention.isNegative() || retention.isZero())) {
            throw Pgvs3Exception.invalidRequest("retention must be positive", "retention");
        }
        if (dedupeWindow != null && (dedupeWindow.isNegative() || dedupeWindow.isZero())) {
            throw Pgvs3Exception.invalidRequest("dedupe_window must be positive", "dedupe_window");
        }
        return calls.existing(name, () -> jdbc.queryForObject(SET_CONFIG.in(name.schema()),
                StreamQueueSettings::config, maxRetries, retention == null ? null : StreamCalls.interval(retention),
                dedupeWindow == null ? null : StreamCalls.interval(dedupeWindow)));
    }

    private static StreamConfig config(ResultSet rs, int row) throws SQLException {
        return new StreamConfig(rs.getInt(1), Duration.ofMillis(rs.getBigDecimal(2).movePointRight(3).longValue()),
                Duration.ofMillis(rs.getBigDecimal(3).movePointRight(3).longValue()));
    }
}
