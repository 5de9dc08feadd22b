package io.pgvs3.embedded;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The embedded PostgreSQL after its JVM was killed with {@code kill -9} ({@link Process#destroyForcibly()} sends
 * SIGKILL): the JVM runs in a child process ({@link EmbeddedPostgresChild}), the next start runs in this one.
 */
@Tag("slow")
class EmbeddedPostgresCrashTest {

    private static final Duration CHILD_READY = Duration.ofMinutes(3);

    @TempDir
    Path dataDirectory;

    private final List<ProcessHandle> spawned = new ArrayList<>();

    @AfterEach
    void killLeftovers() throws IOException {
        spawned.forEach(ProcessHandle::destroyForcibly);
        LeftoverPostmaster.recordedPid(dataDirectory).flatMap(ProcessHandle::of)
                .filter(handle -> LeftoverPostmaster.isPostmasterOf(handle.pid(), dataDirectory))
                .ifPresent(ProcessHandle::destroyForcibly);
    }

    @Test
    void theServerStopsWhenItsJvmIsKilledAndTheNextStartFindsTheData() throws Exception {
        Process child = startChild();
        long postmaster = postmasterPid();
        assertThat(ProcessHandle.of(postmaster)).isPresent();

        kill(child);
        awaitGone(postmaster, Duration.ofSeconds(90));
        assertThat(dataDirectory.resolve(LeftoverPostmaster.PID_FILE)).as("a fast shutdown removes the lock file")
                .doesNotExist();

        assertRestartsWithTheData();
    }

    @Test
    void anOrphanedServerOfTheDataDirectoryIsStoppedBeforeTheNextStart() throws Exception {
        Process child = startChild();
        long postmaster = postmasterPid();
        // without its watchdog the server outlives the JVM, as it did before the watchdog existed
        child.toHandle().descendants().forEach(ProcessHandle::destroyForcibly);
        kill(child);
        Thread.sleep(2000);
        assertThat(ProcessHandle.of(postmaster).map(ProcessHandle::isAlive)).as("the orphaned server still runs")
                .contains(true);
        assertThat(LeftoverPostmaster.isPostmasterOf(postmaster, dataDirectory)).isTrue();

        assertRestartsWithTheData();
        assertThat(ProcessHandle.of(postmaster).map(ProcessHandle::isAlive).orElse(false))
                .as("the orphaned server was stopped").isFalse();
    }

    @Test
    void aLockFileOfAServerKilledWithItsJvmIsReplaced() throws Exception {
        Process child = startChild();
        long postmaster = postmasterPid();
        // the server's own processes outlive a killed postmaster for a moment, attached to its shared memory
        List<ProcessHandle> serverProcesses = ProcessHandle.of(postmaster).map(p -> p.children().toList()).orElse(List.of());
        child.toHandle().descendants().forEach(ProcessHandle::destroyForcibly);
        ProcessHandle.of(postmaster).ifPresent(ProcessHandle::destroyForcibly);
        kill(child);
        awaitGone(postmaster, Duration.ofSeconds(30));
        for (ProcessHandle process : serverProcesses) {
            awaitGone(process.pid(), Duration.ofSeconds(30));
        }
        assertThat(LeftoverPostmaster.recordedPid(dataDirectory)).as("the stale lock file is still there")
                .contains(postmaster);

        assertRestartsWithTheData();
    }

    @Test
    void aLockFileNamingAnotherLiveProcessNeverStopsThatProcess() throws Exception {
        try (EmbeddedPostgres postgres = EmbeddedPostgres.builder().dataDirectory(dataDirectory).start();
                Connection connection = EmbeddedPostgresTest.connect(postgres);
                Statement statement = connection.createStatement()) {
            statement.execute("CREATE TABLE kept (value text)");
            statement.execute("INSERT INTO kept VALUES ('written before kill -9')");
        }
        Process bystander = new ProcessBuilder("sleep", "600").start();
        spawned.add(bystander.toHandle());
        Path pidFile = dataDirectory.resolve(LeftoverPostmaster.PID_FILE);
        Files.writeString(pidFile, bystander.pid() + "\n" + dataDirectory + "\n", StandardCharsets.UTF_8);

        assertRestartsWithTheData();
        assertThat(bystander.isAlive()).as("an unrelated process named by the lock file is left alone").isTrue();
    }

    @Test
    void aDataDirectoryInUseByAnotherLiveJvmIsLeftAlone() throws Exception {
        Process child = startChild();
        long postmaster = postmasterPid();

        assertThatThrownBy(() -> EmbeddedPostgres.builder().dataDirectory(dataDirectory).start())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("is in use by another running process (PID " + child.pid() + ")");
        assertThat(ProcessHandle.of(postmaster).map(ProcessHandle::isAlive)).contains(true);
        assertThat(LeftoverPostmaster.recordedPid(dataDirectory)).contains(postmaster);

        kill(child);
        awaitGone(postmaster, Duration.ofSeconds(90));
        assertRestartsWithTheData();
    }

    private void assertRestartsWithTheData() throws SQLException {
        try (EmbeddedPostgres again = EmbeddedPostgres.builder().dataDirectory(dataDirectory).start();
                Connection connection = EmbeddedPostgresTest.connect(again);
                Statement statement = connection.createStatement();
                ResultSet rs = statement.executeQuery("SELECT value FROM kept")) {
            assertThat(rs.next()).isTrue();
            assertThat(rs.getString(1)).isEqualTo("written before kill -9");
        }
    }

    private Process startChild() throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process child = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
                EmbeddedPostgresChild.class.getName(), dataDirectory.toString()).redirectErrorStream(true).start();
        spawned.add(child.toHandle());
        BufferedReader output = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
        StringBuilder seen = new StringBuilder();
        CompletableFuture<String> ready = CompletableFuture.supplyAsync(() -> {
            try {
                String line;
                while ((line = output.readLine()) != null) {
                    seen.append(line).append('\n');
                    if (line.startsWith("READY ")) {
                        return line;
                    }
                }
                return null;
            }
            catch (IOException ex) {
                return null;
            }
        });
        String line = ready.get(CHILD_READY.toSeconds(), TimeUnit.SECONDS);
        assertThat(line).as("the child JVM started PostgreSQL; its output:%n%s", seen).isNotNull();
        // keep draining so the child never blocks on a full pipe
        CompletableFuture.runAsync(() -> {
            try {
                output.transferTo(Writer.nullWriter());
            }
            catch (IOException ignored) {
                // the child was killed
            }
        });
        return child;
    }

    private long postmasterPid() throws IOException {
        return LeftoverPostmaster.recordedPid(dataDirectory).orElseThrow();
    }

    private static void kill(Process child) throws InterruptedException {
        child.destroyForcibly();
        assertThat(child.waitFor(30, TimeUnit.SECONDS)).isTrue();
    }

    private static void awaitGone(long pid, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false) && System.nanoTime() < deadline) {
            Thread.sleep(200);
        }
        assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false))
                .as("PID %d is gone within %s", pid, timeout).isFalse();
    }
}
