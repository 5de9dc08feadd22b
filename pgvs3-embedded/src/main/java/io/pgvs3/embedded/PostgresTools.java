package io.pgvs3.embedded;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Runs the programs of one PostgreSQL installation on one data directory, as the {@link OsUser} that owns it.
 */
final class PostgresTools {

    static final String LOG_FILE = "postgres.log";

    private final Path installation;
    private final Path dataDirectory;
    private final OsUser osUser;

    PostgresTools(Path installation, Path dataDirectory, OsUser osUser) {
        this.installation = installation;
        this.dataDirectory = dataDirectory;
        this.osUser = osUser;
    }

    Path dataDirectory() {
        return dataDirectory;
    }

    OsUser osUser() {
        return osUser;
    }

    String bin(String program) {
        return installation.resolve("bin").resolve(program).toString();
    }

    /** A process builder for {@code command} run as the PostgreSQL OS user. */
    ProcessBuilder processBuilder(List<String> command) {
        List<String> full = new ArrayList<>(osUser.commandPrefix());
        full.addAll(command);
        ProcessBuilder builder = new ProcessBuilder(full);
        builder.environment().put("LC_ALL", "C");
        builder.environment().remove("PGDATA");
        builder.environment().remove("PGPASSWORD");
        return builder;
    }

    /** Runs {@code command} to its end; a non-zero exit throws with its output and the tail of the server log. */
    void run(List<String> command, Duration timeout) {
        run(command, null, timeout, true);
    }

    /**
     * Runs {@code command} with {@code input} on its standard input. Without {@code reportOutput} a failure names
     * only the command and exit code, for commands whose output may echo secrets.
     */
    void run(List<String> command, String input, Duration timeout, boolean reportOutput) {
        ProcessBuilder builder = processBuilder(command).redirectErrorStream(true);
        if (input == null) {
            builder.redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
        }
        try {
            Process process = builder.start();
            if (input != null) {
                try (OutputStream stdin = process.getOutputStream()) {
                    stdin.write(input.getBytes(StandardCharsets.UTF_8));
                }
            }
            String output = new String(process.getInputStream().readAllBytes());
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly();
                throw new IllegalStateException("Timed out: " + String.join(" ", command));
            }
            if (process.exitValue() != 0) {
                throw new IllegalStateException("PostgreSQL command failed (exit " + process.exitValue() + "): "
                        + String.join(" ", command)
                        + (reportOutput ? System.lineSeparator() + output.strip() + logTail() : ""));
            }
        }
        catch (IOException ex) {
            throw new UncheckedIOException("Could not run " + command.get(0), ex);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while running " + command.get(0), ex);
        }
    }

    private String logTail() {
        Path logFile = dataDirectory.resolve(LOG_FILE);
        try {
            if (Files.exists(logFile)) {
                List<String> lines = Files.readAllLines(logFile);
                return System.lineSeparator() + String.join(System.lineSeparator(),
                        lines.subList(Math.max(0, lines.size() - 20), lines.size()));
            }
        }
        catch (IOException ignored) {
            // the log is only a hint for the error message
        }
        return "";
    }
}
