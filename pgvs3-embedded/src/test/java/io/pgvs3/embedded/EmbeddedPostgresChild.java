package io.pgvs3.embedded;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;

/**
 * A JVM of its own for {@link EmbeddedPostgresCrashTest}: starts the embedded PostgreSQL on the data directory given
 * as the argument, writes a row, prints {@code READY <port>} and waits to be killed.
 */
public final class EmbeddedPostgresChild {

    private EmbeddedPostgresChild() {
    }

    public static void main(String[] args) throws Exception {
        EmbeddedPostgres postgres = EmbeddedPostgres.builder().dataDirectory(Path.of(args[0])).start();
        try (Connection connection = DriverManager.getConnection(postgres.jdbcUrl("postgres"), postgres.username(),
                postgres.password()); Statement statement = connection.createStatement()) {
            statement.execute("CREATE TABLE IF NOT EXISTS kept (value text)");
            statement.execute("INSERT INTO kept VALUES ('written before kill -9')");
        }
        System.out.println("READY " + postgres.port());
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE);
    }
}
