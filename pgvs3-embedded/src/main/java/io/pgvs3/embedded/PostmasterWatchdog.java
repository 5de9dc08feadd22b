package io.pgvs3.embedded;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Stops the PostgreSQL server when the JVM that started it dies without stopping it (for example after
 * {@code kill -9}), so that no orphaned server keeps running.
 * <p>
 * A small shell, run as the PostgreSQL OS user, blocks reading a pipe whose only writer is this JVM. The kernel
 * closes that pipe when the JVM dies, however it dies; the shell then asks the server, if {@code postmaster.pid}
 * still names it, for a fast shutdown (falling back to an immediate one after a minute). A regular
 * {@link #cancel()} ends the shell first, so a server stopped and started again by this JVM is never touched.
 */
final class PostmasterWatchdog {

    // $1: data directory, $2: PID of the postmaster to stop. Terminal signals are ignored: a JVM stopped with
    // Ctrl-C stops the server itself, and if it does not, the closed pipe still wakes this shell.
    private static final String SCRIPT = """
            trap '' INT HUP QUIT
            while read -r _; do :; done
            ours() { [ "$(head -n 1 "$1/postmaster.pid" 2>/dev/null)" = "$2" ]; }
            ours "$1" "$2" || exit 0
            kill -INT "$2" 2>/dev/null || exit 0
            n=0
            while [ "$n" -lt 60 ] && kill -0 "$2" 2>/dev/null; do sleep 1; n=$((n + 1)); done
            if ours "$1" "$2" && kill -0 "$2" 2>/dev/null; then kill -QUIT "$2" 2>/dev/null; fi
            exit 0
            """;

    private final Process process;

    private PostmasterWatchdog(Process process) {
        this.process = process;
    }

    static PostmasterWatchdog start(PostgresTools tools, long postmasterPid) {
        ProcessBuilder builder = tools.processBuilder(List.of("sh", "-c", SCRIPT, "pgvs3-postmaster-watchdog",
                tools.dataDirectory().toString(), Long.toString(postmasterPid)))
                .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .redirectError(ProcessBuilder.Redirect.DISCARD);
        try {
            return new PostmasterWatchdog(builder.start());
        }
        catch (IOException ex) {
            throw new UncheckedIOException("Could not start the watchdog of the embedded PostgreSQL", ex);
        }
    }

    long pid() {
        return process.pid();
    }

    /** Ends the watchdog without touching the server. */
    void cancel() {
        process.destroy();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
        try {
            process.getOutputStream().close();
        }
        catch (IOException ignored) {
            // the pipe only mattered while the watchdog ran
        }
    }
}
