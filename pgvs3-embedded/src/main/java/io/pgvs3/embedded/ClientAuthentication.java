package io.pgvs3.embedded;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Arrays;
import java.util.List;

/**
 * The {@code pg_hba.conf} of an embedded data directory: every connection authenticates with a password
 * (SCRAM-SHA-256); no entry may {@code trust}.
 */
final class ClientAuthentication {

    static final String FILE_NAME = "pg_hba.conf";

    static final String CONTENT = """
            # Written by pgvs3 (io.pgvs3.embedded): every role logs in with its password (SCRAM-SHA-256).
            # The server listens on 127.0.0.1 only and its Unix socket is disabled. pgvs3 rewrites this file
            # whenever an entry allows "trust".
            # TYPE  DATABASE        USER            ADDRESS                 METHOD
            local   all             all                                     scram-sha-256
            host    all             all             127.0.0.1/32            scram-sha-256
            host    all             all             ::1/128                 scram-sha-256
            local   replication     all                                     scram-sha-256
            host    replication     all             127.0.0.1/32            scram-sha-256
            host    replication     all             ::1/128                 scram-sha-256
            """;

    private ClientAuthentication() {
    }

    /** Whether an entry of the file lets a client in without a password. */
    static boolean allowsTrust(Path dataDirectory) throws IOException {
        Path file = dataDirectory.resolve(FILE_NAME);
        if (!Files.exists(file)) {
            return true;
        }
        List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        return lines.stream()
                .map(line -> line.contains("#") ? line.substring(0, line.indexOf('#')) : line)
                .flatMap(line -> Arrays.stream(line.trim().split("\\s+")))
                .anyMatch("trust"::equalsIgnoreCase);
    }

    static void write(Path dataDirectory) throws IOException {
        Path file = dataDirectory.resolve(FILE_NAME);
        Path staging = Files.createTempFile(dataDirectory, "." + FILE_NAME, ".tmp",
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        try {
            Files.writeString(staging, CONTENT, StandardCharsets.UTF_8);
            Files.move(staging, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        }
        finally {
            Files.deleteIfExists(staging);
        }
    }
}
