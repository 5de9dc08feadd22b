package io.pgvs3.embedded;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.EnumSet;
import java.util.Set;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The generated password of the superuser, kept in a file of the data directory that only its owner may read.
 * <p>
 * A missing, empty or unsafe file (not a regular file, or readable by group or others) yields a fresh password,
 * and the caller then sets it on the server.
 */
record SuperuserPassword(String value, boolean generated) {

    static final String FILE_NAME = "pgvs3-superuser-password";

    private static final Logger log = LoggerFactory.getLogger(SuperuserPassword.class);
    private static final Set<PosixFilePermission> OWNER_ONLY = EnumSet.of(PosixFilePermission.OWNER_READ,
            PosixFilePermission.OWNER_WRITE);
    private static final SecureRandom RANDOM = new SecureRandom();

    static SuperuserPassword loadOrGenerate(Path dataDirectory) throws IOException {
        Path file = dataDirectory.resolve(FILE_NAME);
        if (Files.exists(file, LinkOption.NOFOLLOW_LINKS)) {
            if (!Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)) {
                log.warn("{} is not a regular file; replacing it with a new password", file);
            }
            else if (!OWNER_ONLY.containsAll(Files.getPosixFilePermissions(file, LinkOption.NOFOLLOW_LINKS))) {
                log.warn("{} was readable by other users ({}); generating a new password", file,
                        PosixFilePermissions.toString(Files.getPosixFilePermissions(file, LinkOption.NOFOLLOW_LINKS)));
            }
            else {
                String stored = Files.readString(file, StandardCharsets.UTF_8).strip();
                if (!stored.isEmpty()) {
                    return new SuperuserPassword(stored, false);
                }
                log.warn("{} is empty; generating a new password", file);
            }
        }
        byte[] secret = new byte[32];
        RANDOM.nextBytes(secret);
        String password = Base64.getUrlEncoder().withoutPadding().encodeToString(secret);
        Path staging = Files.createTempFile(dataDirectory, "." + FILE_NAME, ".tmp",
                PosixFilePermissions.asFileAttribute(OWNER_ONLY));
        try {
            Files.writeString(staging, password + "\n", StandardCharsets.UTF_8);
            Files.move(staging, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        }
        finally {
            Files.deleteIfExists(staging);
        }
        return new SuperuserPassword(password, true);
    }

    @Override
    public String toString() {
        return "SuperuserPassword[***]";
    }
}
