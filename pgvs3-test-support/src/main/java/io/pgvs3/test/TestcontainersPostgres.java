package io.pgvs3.test;

import org.testcontainers.postgresql.PostgreSQLContainer;

/** Starts the test server in Docker; only loaded when {@code PGVS3_TEST_DB=testcontainers}. */
final class TestcontainersPostgres {

    private TestcontainersPostgres() {
    }

    static TestPostgres start() {
        PostgreSQLContainer container = new PostgreSQLContainer("postgres:17");
        container.start();
        Runtime.getRuntime().addShutdownHook(new Thread(container::stop, "pgvs3-test-container-stop"));
        return TestPostgres.of(container.getJdbcUrl(), container.getUsername(), container.getPassword());
    }
}
