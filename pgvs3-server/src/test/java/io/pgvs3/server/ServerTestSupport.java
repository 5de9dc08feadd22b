package io.pgvs3.server;

import io.pgvs3.test.OjsClient;
import io.pgvs3.test.TestDatabase;
import io.pgvs3.test.TestPostgres;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Base of the server's HTTP tests: the whole server on a random port, on a fresh database of the test PostgreSQL,
 * with an {@link OjsClient} pointed at it. Each subclass gets its own database.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = { "pgvs3.http.admin-reset-enabled=true", "pgvs3.maintenance.interval=100ms" })
public abstract class ServerTestSupport {

    @LocalServerPort
    protected int port;

    @Autowired
    protected JdbcTemplate jdbc;

    protected OjsClient http;

    @DynamicPropertySource
    static void database(DynamicPropertyRegistry registry) {
        TestDatabase database = TestPostgres.get().newDatabase();
        registry.add("spring.datasource.url", database::jdbcUrl);
        if (database.username() != null) {
            registry.add("spring.datasource.username", database::username);
        }
        if (database.password() != null) {
            registry.add("spring.datasource.password", database::password);
        }
    }

    @org.junit.jupiter.api.BeforeEach
    void client() {
        http = OjsClient.forPort(port);
    }
}
