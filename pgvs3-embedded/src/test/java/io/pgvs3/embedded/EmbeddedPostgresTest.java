package io.pgvs3.embedded;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class EmbeddedPostgresTest {

    @TempDir
    Path dataDirectory;

    @Test
    void keepsItsDataAcrossRestartsAndStopsCleanly() throws SQLException {
        int port;
        try (EmbeddedPostgres postgres = EmbeddedPostgres.builder().dataDirectory(dataDirectory).start()) {
            port = postgres.port();
            try (Connection connection = DriverManager.getConnection(postgres.jdbcUrl("postgres"));
                    Statement statement = connection.createStatement()) {
                statement.execute("CREATE TABLE kept (value text)");
                statement.execute("INSERT INTO kept VALUES ('survives')");
                try (ResultSet rs = statement.executeQuery("SHOW server_version_num")) {
                    rs.next();
                    assertThat(rs.getInt(1)).isGreaterThanOrEqualTo(170000);
                }
            }
        }
        int stoppedPort = port;
        assertThatThrownBy(() -> DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + stoppedPort + "/postgres?user=postgres"))
                .isInstanceOf(SQLException.class);

        try (EmbeddedPostgres again = EmbeddedPostgres.builder().dataDirectory(dataDirectory).start();
                Connection connection = DriverManager.getConnection(again.jdbcUrl("postgres"));
                Statement statement = connection.createStatement();
                ResultSet rs = statement.executeQuery("SELECT value FROM kept")) {
            assertThat(rs.next()).isTrue();
            assertThat(rs.getString(1)).isEqualTo("survives");
        }
    }
}
