package io.pgvs3.core.stream;

import java.sql.SQLException;

import io.pgvs3.core.error.ErrorCode;
import org.junit.jupiter.api.Test;

import org.springframework.jdbc.UncategorizedSQLException;

import static org.assertj.core.api.Assertions.assertThat;

class StreamErrorsTest {

    @Test
    void aBatchPastPostgresLimitsIsAClientError() {
        var ex = new UncategorizedSQLException("receive", "SELECT ...",
                new SQLException("array size exceeds the maximum allowed (1073741823)", "54000"));
        assertThat(StreamErrors.translate(ex)).satisfies(error -> {
            assertThat(error.code()).isEqualTo(ErrorCode.PAYLOAD_TOO_LARGE);
            assertThat(error.getMessage()).contains("fewer at a time");
        });
    }

    @Test
    void aFailureNoClientCausedIsNotTranslated() {
        var ex = new UncategorizedSQLException("receive", "SELECT ...", new SQLException("terminated", "57P01"));
        assertThat(StreamErrors.translate(ex)).isNull();
    }
}
