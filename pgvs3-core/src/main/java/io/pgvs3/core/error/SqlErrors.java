package io.pgvs3.core.error;

import java.sql.SQLException;
import java.util.Set;

import org.postgresql.util.PSQLException;
import org.postgresql.util.ServerErrorMessage;

/**
 * Reads what PostgreSQL said about a failure: the first {@link SQLException} in a cause chain (Spring wraps it in a
 * {@code DataAccessException}), its SQLSTATE and the fields of the server's error message. The job, stream and
 * catalog code each map these to OJS errors.
 */
public final class SqlErrors {

    /** unique_violation. */
    public static final String UNIQUE_VIOLATION = "23505";

    /** Raised by a queue's {@code enqueue} for a unique job rejected on conflict; the DETAIL is the existing job's id. */
    public static final String UNIQUE_JOB_CONFLICT = "S3410";

    /** untranslatable_character, character_not_in_repertoire, invalid_text_representation: text it cannot store. */
    public static final Set<String> UNSTORABLE_TEXT = Set.of("22P05", "22021", "22P02");

    /** undefined_table, undefined_function, invalid_schema_name: a queue's schema or one of its objects is gone. */
    public static final Set<String> MISSING_NAMESPACE = Set.of("42P01", "42883", "3F000");

    private SqlErrors() {
    }

    /** The first SQL exception in the cause chain, or null. */
    public static SQLException sqlException(Throwable ex) {
        for (Throwable t = ex; t != null; t = t.getCause()) {
            if (t instanceof SQLException sql) {
                return sql;
            }
        }
        return null;
    }

    /** The SQLSTATE of the first SQL exception in the cause chain, or null. */
    public static String sqlState(Throwable ex) {
        SQLException sql = sqlException(ex);
        return sql == null ? null : sql.getSQLState();
    }

    /** Whether the first SQL exception in the cause chain has one of the states. */
    public static boolean hasState(Throwable ex, Set<String> states) {
        String state = sqlState(ex);
        return state != null && states.contains(state);
    }

    /** Whether the first SQL exception in the cause chain has the state. */
    public static boolean hasState(Throwable ex, String state) {
        return state.equals(sqlState(ex));
    }

    /** PostgreSQL's structured error message of the exception, or null (not from the server, or another driver). */
    public static ServerErrorMessage serverError(SQLException sql) {
        return sql instanceof PSQLException psql ? psql.getServerErrorMessage() : null;
    }

    /** The DETAIL of the server's error, or null. */
    public static String detail(SQLException sql) {
        ServerErrorMessage server = serverError(sql);
        return server == null ? null : server.getDetail();
    }

    /** The constraint the server's error names, or null. */
    public static String constraint(SQLException sql) {
        ServerErrorMessage server = serverError(sql);
        return server == null ? null : server.getConstraint();
    }

    /** The server's own message (without the driver's "ERROR: " prefix and position), else the exception's. */
    public static String message(SQLException sql) {
        ServerErrorMessage server = serverError(sql);
        return server != null ? server.getMessage() : sql.getMessage();
    }

    /** Whether a failure means a queue's schema, table or function does not exist. */
    public static boolean isMissingNamespace(Throwable ex) {
        return hasState(ex, MISSING_NAMESPACE);
    }
}
