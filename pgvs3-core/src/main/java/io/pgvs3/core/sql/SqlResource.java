package io.pgvs3.core.sql;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/**
 * Loads SQL text shipped with pgvs3 from {@code io/pgvs3/sql/} on the classpath (the repository's {@code sql/}).
 */
public final class SqlResource {

    private SqlResource() {
    }

    public static String load(String relativePath) {
        String resource = "io/pgvs3/sql/" + relativePath;
        try (InputStream in = SqlResource.class.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("Missing SQL resource " + resource);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        catch (IOException ex) {
            throw new UncheckedIOException("Could not read SQL resource " + resource, ex);
        }
    }
}
