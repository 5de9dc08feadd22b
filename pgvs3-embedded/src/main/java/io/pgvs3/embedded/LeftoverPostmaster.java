package io.pgvs3.embedded;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A PostgreSQL server that an earlier run left behind on the data directory, for example after the JVM that
 * started it was killed with {@code kill -9}. Only looked for while holding the {@link DataDirectoryLock}, so that
 * no live JVM still runs that server.
 * <p>
 * {@code postmaster.pid} names the server's PID. A live process of that PID is stopped only when it is a
 * {@code postgres} process working in this very data directory; any other process is left alone and the lock file,
 * which then only names a reused PID, is removed. A lock file of a dead process is left to PostgreSQL, which
 * replaces it on start.
 */
final class LeftoverPostmaster {

    static final String PID_FILE = "postmaster.pid";

    private static final Logger log = LoggerFactory.getLogger(LeftoverPostmaster.class);
    private static final Duration STOP_WAIT = Duration.ofSeconds(60);

    private final PostgresTools tools;

    LeftoverPostmaster(PostgresTools tools) {
        this.tools = tools;
    }

    /** Stops a server still running on the data directory; returns whether there was one. */
    boolean stopIfRunning() throws IOException {
        Path dataDirectory = tools.dataDirectory();
        Optional<Long> recorded = recordedPid(dataDirectory);
        if (recorded.isEmpty()) {
            return false;
        }
        long pid = recorded.get();
        Optional<ProcessHandle> process = ProcessHandle.of(pid).filter(ProcessHandle::isAlive);
        if (process.isEmpty()) {
            log.info("{} names PID {}, which is no longer running; PostgreSQL replaces the stale lock file",
                    dataDirectory.resolve(PID_FILE), pid);
            return false;
        }
        if (!isPostmasterOf(pid, dataDirectory)) {
            log.warn("{} names PID {}, which is not a PostgreSQL server of this data directory (the PID was reused); "
                    + "leaving that process alone and removing the stale lock file", dataDirectory.resolve(PID_FILE), pid);
            Files.deleteIfExists(dataDirectory.resolve(PID_FILE));
            return false;
        }
        log.warn("A PostgreSQL server (PID {}) left over from an earlier run still serves {}; stopping it", pid,
                dataDirectory);
        stop(process.get(), "fast");
        if (process.get().isAlive()) {
            log.warn("The left-over PostgreSQL server (PID {}) did not stop in fast mode; stopping it in immediate mode", pid);
            stop(process.get(), "immediate");
        }
        if (process.get().isAlive() && isPostmasterOf(pid, dataDirectory)) {
            // pg_ctl could not signal it (another OS user ran it); a root JVM still can: SIGTERM is a smart shutdown
            process.get().destroy();
            awaitExit(process.get());
        }
        if (process.get().isAlive()) {
            throw new IllegalStateException("The PostgreSQL server (PID " + pid + ") left over on " + dataDirectory
                    + " did not stop; stop it and start again");
        }
        log.info("Stopped the left-over PostgreSQL server (PID {}) of {}", pid, dataDirectory);
        return true;
    }

    private void stop(ProcessHandle process, String mode) {
        try {
            tools.run(List.of(tools.bin("pg_ctl"), "-D", tools.dataDirectory().toString(), "-m", mode, "-w", "-t",
                    Long.toString(STOP_WAIT.toSeconds()), "stop"), STOP_WAIT.plusSeconds(30));
        }
        catch (RuntimeException ex) {
            // it may have stopped by itself meanwhile; whether it still runs decides what comes next
            log.debug("pg_ctl stop -m {} failed", mode, ex);
        }
        awaitExit(process);
    }

    private static void awaitExit(ProcessHandle process) {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (process.isAlive() && System.nanoTime() < deadline) {
            try {
                Thread.sleep(100);
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    static Optional<Long> recordedPid(Path dataDirectory) throws IOException {
        List<String> lines;
        try {
            lines = Files.readAllLines(dataDirectory.resolve(PID_FILE), StandardCharsets.UTF_8);
        }
        catch (NoSuchFileException ex) {
            return Optional.empty();
        }
        if (lines.isEmpty()) {
            return Optional.empty();
        }
        try {
            long pid = Long.parseLong(lines.get(0).trim());
            return pid > 0 ? Optional.of(pid) : Optional.empty();
        }
        catch (NumberFormatException ex) {
            return Optional.empty();
        }
    }

    /**
     * Whether {@code pid} is a {@code postgres} server of {@code dataDirectory}: its program is {@code postgres} and
     * its working directory, where a postmaster changes to on start, is the data directory.
     */
    static boolean isPostmasterOf(long pid, Path dataDirectory) {
        Path proc = Path.of("/proc", Long.toString(pid));
        try {
            if (Files.isDirectory(Path.of("/proc/self"))) {
                byte[] cmdline = Files.readAllBytes(proc.resolve("cmdline"));
                int end = 0;
                while (end < cmdline.length && cmdline[end] != 0) {
                    end++;
                }
                String program = new String(cmdline, 0, end, StandardCharsets.UTF_8);
                Path workingDirectory = Files.readSymbolicLink(proc.resolve("cwd"));
                return isPostgres(program) && workingDirectory.equals(dataDirectory.toRealPath());
            }
            // no /proc (macOS): the program name is all that can be checked without extra tools
            return ProcessHandle.of(pid).flatMap(handle -> handle.info().command()).map(LeftoverPostmaster::isPostgres)
                    .orElse(false);
        }
        catch (IOException | SecurityException ex) {
            // not readable: the process belongs to another user and cannot be a server of our data directory
            return false;
        }
    }

    private static boolean isPostgres(String program) {
        return !program.isEmpty() && "postgres".equals(Path.of(program).getFileName().toString());
    }
}
