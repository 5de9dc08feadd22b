package io.pgvs3.embedded;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.GroupPrincipal;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.UserPrincipal;
import java.nio.file.attribute.UserPrincipalLookupService;
import java.util.ArrayList;
import java.util.List;

/**
 * Who runs the PostgreSQL processes. PostgreSQL refuses to start as root, so a root JVM runs {@code initdb} and
 * {@code pg_ctl} through {@code setpriv} as an unprivileged user.
 * <p>
 * That user gets no capability, unless a directory above the data directory or the binaries is closed to other
 * users (such as {@code /root}): then it keeps {@code CAP_DAC_READ_SEARCH} as an ambient capability, which lets it
 * pass through such directories (and read files), but never write outside what it owns.
 */
record OsUser(String name, List<String> commandPrefix) {

    /** {@code paths}: the directories the server must reach (the data directory and the installation). */
    static OsUser forServer(String requested, List<Path> paths) {
        if (!"root".equals(System.getProperty("user.name"))) {
            return new OsUser(System.getProperty("user.name"), List.of());
        }
        String name = requested != null ? requested : (userExists("postgres") ? "postgres" : "nobody");
        String id = idOutput("-u", name);
        String group = idOutput("-g", name);
        List<String> prefix = new ArrayList<>(List.of("setpriv", "--reuid=" + id, "--regid=" + group,
                "--clear-groups"));
        if (!paths.stream().allMatch(OsUser::reachableByOthers)) {
            prefix.addAll(List.of("--inh-caps=+dac_read_search", "--ambient-caps=+dac_read_search"));
        }
        prefix.add("--");
        return new OsUser(name, List.copyOf(prefix));
    }

    /** Whether every existing directory above {@code path} lets other users pass through. */
    static boolean reachableByOthers(Path path) {
        for (Path dir = path.toAbsolutePath().normalize().getParent(); dir != null; dir = dir.getParent()) {
            try {
                if (Files.exists(dir) && !Files.getPosixFilePermissions(dir).contains(PosixFilePermission.OTHERS_EXECUTE)) {
                    return false;
                }
            }
            catch (IOException ex) {
                return false;
            }
        }
        return true;
    }

    void takeOwnership(Path directory) throws IOException {
        if (commandPrefix.isEmpty()) {
            return;
        }
        UserPrincipalLookupService lookup = directory.getFileSystem().getUserPrincipalLookupService();
        UserPrincipal user = lookup.lookupPrincipalByName(name);
        GroupPrincipal group = lookup.lookupPrincipalByGroupName(idName(name));
        forEachPresent(directory, path -> {
            PosixFileAttributeView view = Files.getFileAttributeView(path, PosixFileAttributeView.class,
                    LinkOption.NOFOLLOW_LINKS);
            view.setOwner(user);
            view.setGroup(group);
        });
    }

    /**
     * Applies {@code action} to the directory and everything under it that still exists when reached. A postmaster
     * left behind by a killed JVM may still be shutting down on the directory, and its shutdown checkpoint removes
     * the files of relations truncated or dropped before it: a file that is gone needs no owner.
     */
    static void forEachPresent(Path directory, PathAction action) throws IOException {
        Files.walkFileTree(directory, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) throws IOException {
                try {
                    action.apply(dir);
                    return FileVisitResult.CONTINUE;
                }
                catch (NoSuchFileException ex) {
                    return FileVisitResult.SKIP_SUBTREE;
                }
            }

            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                try {
                    action.apply(file);
                }
                catch (NoSuchFileException ex) {
                    // removed after it was listed
                }
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFileFailed(Path file, IOException ex) throws IOException {
                if (ex instanceof NoSuchFileException) {
                    return FileVisitResult.CONTINUE;
                }
                throw ex;
            }

            @Override
            public FileVisitResult postVisitDirectory(Path dir, IOException ex) throws IOException {
                if (ex != null && !(ex instanceof NoSuchFileException)) {
                    throw ex;
                }
                return FileVisitResult.CONTINUE;
            }
        });
    }

    @FunctionalInterface
    interface PathAction {
        void apply(Path path) throws IOException;
    }

    private static String idName(String user) {
        return idOutput("-gn", user);
    }

    private static boolean userExists(String user) {
        try {
            idOutput("-u", user);
            return true;
        }
        catch (IllegalStateException ex) {
            return false;
        }
    }

    private static String idOutput(String flag, String user) {
        try {
            Process process = new ProcessBuilder("id", flag, user).redirectErrorStream(true).start();
            String output = new String(process.getInputStream().readAllBytes()).strip();
            if (process.waitFor() != 0) {
                throw new IllegalStateException("No OS user '" + user + "' to run PostgreSQL as: " + output);
            }
            return output;
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(ex);
        }
    }
}
