package io.pgvs3.server.security;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Properties;

import io.pgvs3.server.ServerTestSupport;
import io.pgvs3.spring.web.security.TokenHashes;
import io.pgvs3.test.OjsClient.Response;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.TestPropertySource;

import static io.pgvs3.server.security.SecurityAssertions.assertError;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * With PostgreSQL unreachable, through the whole filter chain of the open loopback server: health answers 503
 * degraded at once (the token check does not wait for the catalog on the open routes), other routes are closed
 * (the catalog cannot say that no token exists), and a presented token is answered 503 rather than held.
 */
@Tag("slow")
@DirtiesContext
@TestPropertySource(properties = "spring.datasource.hikari.connection-timeout=5000")
class OpenRoutesWhenDatabaseIsDownTest extends ServerTestSupport {

    @Value("${spring.datasource.url}")
    String url;

    @Value("${spring.datasource.username:#{null}}")
    String username;

    @Value("${spring.datasource.password:#{null}}")
    String password;

    String database;

    @AfterEach
    void reopen() throws SQLException {
        if (database != null) {
            try (Connection admin = connect(url.replace("/" + database, "/postgres"));
                    Statement statement = admin.createStatement()) {
                statement.execute("ALTER DATABASE \"" + database + "\" ALLOW_CONNECTIONS true");
            }
        }
    }

    Connection connect(String jdbcUrl) throws SQLException {
        Properties properties = new Properties();
        if (username != null) {
            properties.setProperty("user", username);
        }
        if (password != null) {
            properties.setProperty("password", password);
        }
        return DriverManager.getConnection(jdbcUrl, properties);
    }

    /** Closes the database to new connections and ends the server's. */
    void takeTheDatabaseDown() throws SQLException {
        String name = jdbc.queryForObject("SELECT current_database()", String.class);
        try (Connection admin = connect(url.replace("/" + name, "/postgres"));
                Statement statement = admin.createStatement()) {
            database = name;
            statement.execute("ALTER DATABASE \"" + name + "\" ALLOW_CONNECTIONS false");
            statement.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '" + name + "'");
        }
    }

    @Test
    void healthAnswersDegradedQuicklyAndTheRestStaysClosed() throws Exception {
        assertThat(http.get("/ojs/v1/health").status()).isEqualTo(200);
        assertThat(http.get("/ojs/v1/queues").status()).isEqualTo(200);
        takeTheDatabaseDown();
        // past the interval for which the answer "no token exists" is reused
        Thread.sleep(2500);

        long start = System.nanoTime();
        Response health = http.get("/ojs/v1/health");
        long millis = (System.nanoTime() - start) / 1_000_000;
        assertThat(health.status()).as(health.toString()).isEqualTo(503);
        assertThat(health.json().path("status").asString()).isEqualTo("degraded");
        // the health check's own deadline is 2 s; far below the 5 s the connection pool would wait
        assertThat(millis).isLessThan(4500);

        assertError(http.get("/ojs/v1/queues"), 401, "unauthorized");
        assertError(http.withBearer(TokenHashes.newToken()).get("/ojs/v1/queues"), 503, "backend_unavailable");
    }
}
