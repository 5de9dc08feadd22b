package io.pgvs3.core.stream;

import java.time.Duration;
import java.util.function.Supplier;

import io.pgvs3.core.catalog.QueueCatalog;
import io.pgvs3.core.catalog.QueueName;
import io.pgvs3.core.error.Pgvs3Exception;
import org.postgresql.util.PGInterval;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * How the stream classes call a queue's {@code stream_*} functions: on a queue that is created on first use, or on
 * one that must exist ({@code not_found} otherwise), with the functions' errors translated to OJS errors; and the
 * argument checks and conversions they share.
 */
final class StreamCalls {

    private static final JsonMapper JSON = JsonMapper.builder().build();

    private final JdbcTemplate jdbc;
    private final QueueCatalog catalog;

    StreamCalls(JdbcTemplate jdbc, QueueCatalog catalog) {
        this.jdbc = jdbc;
        this.catalog = catalog;
    }

    JdbcTemplate jdbc() {
        return jdbc;
    }

    QueueCatalog catalog() {
        return catalog;
    }

    /** Runs {@code work} on a queue created first when it does not exist. */
    <T> T creating(QueueName name, Supplier<T> work) {
        try {
            return catalog.withQueue(name, work);
        }
        catch (DataAccessException ex) {
            throw translated(ex);
        }
    }

    /** Runs {@code work} on a queue that must exist: {@code not_found} when it does not (or was dropped meanwhile). */
    <T> T existing(QueueName name, Supplier<T> work) {
        if (!catalog.exists(name)) {
            throw missingQueue(name);
        }
        try {
            return work.get();
        }
        catch (DataAccessException ex) {
            if (QueueCatalog.isMissingNamespace(ex)) {
                catalog.forget(name);
                throw missingQueue(name);
            }
            throw translated(ex);
        }
    }

    static RuntimeException translated(DataAccessException ex) {
        Pgvs3Exception translated = StreamErrors.translate(ex);
        return translated != null ? translated : ex;
    }

    private static Pgvs3Exception missingQueue(QueueName name) {
        return Pgvs3Exception.notFound("queue '" + name + "' does not exist");
    }

    static void requireName(String value, String field) {
        if (value == null || value.isEmpty()) {
            throw Pgvs3Exception.invalidRequest(field + " is required", field);
        }
        if (value.length() > 255) {
            throw Pgvs3Exception.invalidRequest(field + " must be at most 255 characters", field);
        }
    }

    static PGInterval interval(Duration duration) {
        try {
            PGInterval interval = new PGInterval();
            interval.setSeconds(duration.toNanos() / 1_000_000_000.0);
            return interval;
        }
        catch (ArithmeticException ex) {
            throw Pgvs3Exception.invalidRequest("duration " + duration + " is too long");
        }
    }

    static JsonNode json(String text) {
        return JSON.readTree(text);
    }
}
