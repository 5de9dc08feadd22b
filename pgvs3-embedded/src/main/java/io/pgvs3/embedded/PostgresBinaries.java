package io.pgvs3.embedded;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Locale;

import io.zonky.test.db.postgres.embedded.DefaultPostgresBinaryResolver;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.apache.commons.compress.compressors.xz.XZCompressorInputStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The PostgreSQL server binaries shipped in the {@code io.zonky.test.postgres} artifacts, unpacked once
 * per machine into a shared cache directory.
 */
final class PostgresBinaries {

    private static final Logger log = LoggerFactory.getLogger(PostgresBinaries.class);

    private PostgresBinaries() {
    }

    /** Returns the installation directory (with {@code bin/}, {@code lib/}, {@code share/}), unpacking it if needed. */
    static Path install(Path cacheRoot) {
        String system = system();
        String architecture = architecture();
        try (InputStream archive = DefaultPostgresBinaryResolver.INSTANCE.getPgBinary(system, architecture)) {
            byte[] bytes = archive.readAllBytes();
            String key = Integer.toHexString(java.util.Arrays.hashCode(bytes)) + "-" + bytes.length;
            Path target = cacheRoot.resolve("pgvs3-postgres-" + key);
            if (Files.isExecutable(target.resolve("bin/postgres"))) {
                return target;
            }
            Files.createDirectories(cacheRoot);
            Path staging = Files.createTempDirectory(cacheRoot, "pgvs3-postgres-unpack-");
            unpack(new java.io.ByteArrayInputStream(bytes), staging);
            Files.setPosixFilePermissions(staging, PosixFilePermissions.fromString("rwxr-xr-x"));
            try {
                Files.move(staging, target, StandardCopyOption.ATOMIC_MOVE);
                log.info("Unpacked PostgreSQL binaries into {}", target);
            }
            catch (FileAlreadyExistsException | AtomicMoveNotSupportedException | java.nio.file.DirectoryNotEmptyException raced) {
                deleteRecursively(staging);
            }
            return target;
        }
        catch (IOException ex) {
            throw new UncheckedIOException("Could not unpack the PostgreSQL binaries for " + system + "/" + architecture, ex);
        }
    }

    private static void unpack(InputStream archive, Path into) throws IOException {
        try (TarArchiveInputStream tar = new TarArchiveInputStream(
                new XZCompressorInputStream(new BufferedInputStream(archive)))) {
            TarArchiveEntry entry;
            while ((entry = tar.getNextEntry()) != null) {
                Path path = into.resolve(entry.getName()).normalize();
                if (!path.startsWith(into)) {
                    throw new IOException("Archive entry outside the target directory: " + entry.getName());
                }
                if (entry.isDirectory()) {
                    Files.createDirectories(path);
                }
                else if (entry.isSymbolicLink()) {
                    Files.createDirectories(path.getParent());
                    Files.createSymbolicLink(path, Path.of(entry.getLinkName()));
                }
                else {
                    Files.createDirectories(path.getParent());
                    Files.copy(tar, path, StandardCopyOption.REPLACE_EXISTING);
                    boolean executable = (entry.getMode() & 0100) != 0;
                    Files.setPosixFilePermissions(path, PosixFilePermissions.fromString(executable ? "rwxr-xr-x" : "rw-r--r--"));
                }
            }
        }
        try (var dirs = Files.walk(into)) {
            for (Path dir : (Iterable<Path>) dirs.filter(Files::isDirectory)::iterator) {
                Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
            }
        }
    }

    static void deleteRecursively(Path root) {
        if (!Files.exists(root)) {
            return;
        }
        try (var paths = Files.walk(root)) {
            paths.sorted(java.util.Comparator.reverseOrder()).forEach(path -> {
                try {
                    Files.deleteIfExists(path);
                }
                catch (IOException ignored) {
                    // best effort cleanup of a temporary directory
                }
            });
        }
        catch (IOException ignored) {
            // best effort cleanup of a temporary directory
        }
    }

    private static String system() {
        String name = System.getProperty("os.name").toLowerCase(Locale.ROOT);
        if (name.contains("linux")) {
            return "Linux";
        }
        if (name.contains("mac")) {
            return "Darwin";
        }
        throw new IllegalStateException("The embedded PostgreSQL server supports Linux and macOS, not " + name
                + "; set spring.datasource.url to use an existing server");
    }

    private static String architecture() {
        String arch = System.getProperty("os.arch").toLowerCase(Locale.ROOT);
        return switch (arch) {
            case "amd64", "x86_64" -> "x86_64";
            case "aarch64", "arm64" -> "arm_64";
            default -> arch;
        };
    }
}
