package io.pgvs3.core.error;

import java.sql.SQLException;

import org.junit.jupiter.api.Test;

import org.springframework.dao.DataIntegrityViolationException;
import org.springframework.jdbc.UncategorizedSQLException;

import static org.assertj.core.api.Assertions.assertThat;

/** The first SQL exception of a cause chain and what it says, as the job, stream and catalog code read it. */
class SqlErrorsTest {

    @Test
    void theFirstSqlExceptionInTheCauseChainIsRead() {
        SQLException first = new SQLException("outer", "23505");
        first.setNextException(new SQLException("next", "42P01"));
        RuntimeException wrapped = new DataIntegrityViolationException("insert", new RuntimeException(first));

        assertThat((Object) SqlErrors.sqlException(wrapped)).isSameAs(first);
        assertThat(SqlErrors.sqlState(wrapped)).isEqualTo(SqlErrors.UNIQUE_VIOLATION);
        assertThat(SqlErrors.hasState(wrapped, "23505")).isTrue();
        assertThat(SqlErrors.isMissingNamespace(wrapped)).isFalse();
        assertThat(SqlErrors.message(first)).isEqualTo("outer");
        assertThat(SqlErrors.detail(first)).isNull();
        assertThat(SqlErrors.constraint(first)).isNull();
    }

    @Test
    void aMissingSchemaTableOrFunctionIsAMissingNamespace() {
        for (String state : new String[] { "42P01", "42883", "3F000" }) {
            assertThat(SqlErrors.isMissingNamespace(new UncategorizedSQLException("q", "SELECT 1",
                    new SQLException("gone", state)))).as(state).isTrue();
        }
        assertThat(SqlErrors.hasState(new SQLException("bad text", "22P05"), SqlErrors.UNSTORABLE_TEXT)).isTrue();
    }

    @Test
    void aFailureWithoutSqlExceptionHasNoState() {
        RuntimeException plain = new IllegalStateException("no SQL", new RuntimeException());

        assertThat((Object) SqlErrors.sqlException(plain)).isNull();
        assertThat(SqlErrors.sqlState(plain)).isNull();
        assertThat(SqlErrors.hasState(plain, SqlErrors.UNSTORABLE_TEXT)).isFalse();
        assertThat(SqlErrors.isMissingNamespace(plain)).isFalse();
        assertThat(SqlErrors.sqlState(null)).isNull();
    }
}
