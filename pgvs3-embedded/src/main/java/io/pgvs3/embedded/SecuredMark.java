package io.pgvs3.embedded;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * A file in the data directory saying that the superuser's password and {@code pg_hba.conf} were both set for the
 * password of the password file. It holds a digest of that password, never the password, and is written only after
 * both steps succeeded, so a start interrupted between them is completed by the next one.
 */
final class SecuredMark {

    static final String FILE_NAME = "pgvs3-secured";

    private SecuredMark() {
    }

    static boolean matches(Path dataDirectory, String password) throws IOException {
        Path file = dataDirectory.resolve(FILE_NAME);
        if (!Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)) {
            return false;
        }
        return Files.readString(file, StandardCharsets.UTF_8).strip().equals(digest(password));
    }

    static void write(Path dataDirectory, String password) throws IOException {
        Path staging = Files.createTempFile(dataDirectory, "." + FILE_NAME, ".tmp",
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        try {
            Files.writeString(staging, digest(password) + "\n", StandardCharsets.UTF_8);
            Files.move(staging, dataDirectory.resolve(FILE_NAME), StandardCopyOption.REPLACE_EXISTING,
                    StandardCopyOption.ATOMIC_MOVE);
        }
        finally {
            Files.deleteIfExists(staging);
        }
    }

    private static String digest(String password) {
        try {
            byte[] hash = MessageDigest.getInstance("SHA-256").digest(("pgvs3-secured:" + password)
                    .getBytes(StandardCharsets.UTF_8));
            return "sha256:" + HexFormat.of().formatHex(hash);
        }
        catch (NoSuchAlgorithmException ex) {
            throw new IllegalStateException("SHA-256 is not available", ex);
        }
    }
}
