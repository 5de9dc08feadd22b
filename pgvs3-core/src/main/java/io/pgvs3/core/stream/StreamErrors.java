package io.pgvs3.core.stream;

import java.sql.SQLException;
import java.util.Map;

import io.pgvs3.core.error.ErrorCode;
import io.pgvs3.core.error.Pgvs3Exception;
import io.pgvs3.core.error.SqlErrors;
import tools.jackson.core.type.TypeReference;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.dao.DataAccessException;

/**
 * Maps the errors the {@code stream_*} functions raise (SQLSTATE {@code S3400}, {@code S3404}, {@code S3409},
 * {@code S3413}) and PostgreSQL's own rejections of a payload or of a batch too large for one statement to OJS
 * errors.
 */
final class StreamErrors {

    private static final Map<String, ErrorCode> RAISED = Map.of(
            "S3400", ErrorCode.INVALID_REQUEST,
            "S3404", ErrorCode.NOT_FOUND,
            "S3409", ErrorCode.CONFLICT,
            "S3413", ErrorCode.BATCH_TOO_LARGE);

    /** invalid_text_representation, untranslatable_character, character_not_in_repertoire: bad JSON text. */
    private static final Map<String, String> PAYLOAD = Map.of(
            "22P02", "payload or headers are not valid JSON",
            "22P05", "payload or headers contain a character PostgreSQL cannot store",
            "22021", "payload contains an invalid character");

    private static final String PROGRAM_LIMIT_EXCEEDED = "54000";

    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final TypeReference<Map<String, Object>> DETAILS = new TypeReference<>() {
    };

    private StreamErrors() {
    }

    /** The OJS error for a failure, or null when it is not one a client caused. */
    static Pgvs3Exception translate(DataAccessException ex) {
        SQLException sql = SqlErrors.sqlException(ex);
        if (sql == null || sql.getSQLState() == null) {
            return null;
        }
        ErrorCode code = RAISED.get(sql.getSQLState());
        if (code != null) {
            return new Pgvs3Exception(code, SqlErrors.message(sql), details(sql), ex);
        }
        if (PROGRAM_LIMIT_EXCEEDED.equals(sql.getSQLState())) {
            // a batch whose messages together pass PostgreSQL's 1 GB limit for one value
            return new Pgvs3Exception(ErrorCode.PAYLOAD_TOO_LARGE, "the messages are more than PostgreSQL can handle "
                    + "in one statement; receive or append fewer at a time", Map.of(), ex);
        }
        String payload = PAYLOAD.get(sql.getSQLState());
        if (payload != null) {
            return new Pgvs3Exception(ErrorCode.INVALID_PAYLOAD, payload, Map.of(), ex);
        }
        return null;
    }

    /** The JSON object a function put in the error's DETAIL (batch_too_large carries batch_size and max). */
    private static Map<String, Object> details(SQLException sql) {
        String detail = SqlErrors.detail(sql);
        return detail != null && detail.startsWith("{") ? JSON.readValue(detail, DETAILS) : Map.of();
    }
}
