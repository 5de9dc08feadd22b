package io.pgvs3.embedded;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A root JVM runs PostgreSQL as an unprivileged OS user, with no more capability than reaching its directories.
 */
@Tag("slow")
class EmbeddedPostgresAsRootTest {

    private static final long CAP_DAC_OVERRIDE = 1L << 1;
    private static final long CAP_DAC_READ_SEARCH = 1L << 2;

    @TempDir
    Path privateDirectory;

    @BeforeEach
    void onlyAsRoot() {
        assumeTrue("root".equals(System.getProperty("user.name")), "only a root JVM switches to another OS user");
    }

    @Test
    void aServerInAPlaceOthersMayReachRunsWithoutAnyCapability() throws Exception {
        Path shared = Files.createTempDirectory("pgvs3-embedded-shared-");
        Files.setPosixFilePermissions(shared, PosixFilePermissions.fromString("rwxr-xr-x"));
        try (EmbeddedPostgres postgres = EmbeddedPostgres.builder().dataDirectory(shared.resolve("data")).start()) {
            long postmaster = LeftoverPostmaster.recordedPid(postgres.dataDirectory()).orElseThrow();
            assertThat(Files.getOwner(postgres.dataDirectory()).getName()).isNotEqualTo("root");
            assertThat(capabilities(postmaster, "CapEff")).isZero();
            assertThat(capabilities(postmaster, "CapAmb")).isZero();
        }
        finally {
            PostgresBinaries.deleteRecursively(shared);
        }
    }

    @Test
    void aServerBelowAPrivateDirectoryMayPassThroughButNotWriteThere() throws Exception {
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(privateDirectory))).isEqualTo("rwx------");
        try (EmbeddedPostgres postgres = EmbeddedPostgres.builder().dataDirectory(privateDirectory.resolve("data")).start();
                Connection connection = EmbeddedPostgresTest.connect(postgres);
                Statement statement = connection.createStatement()) {
            long postmaster = LeftoverPostmaster.recordedPid(postgres.dataDirectory()).orElseThrow();
            assertThat(capabilities(postmaster, "CapAmb")).isEqualTo(CAP_DAC_READ_SEARCH);
            assertThat(capabilities(postmaster, "CapEff") & CAP_DAC_OVERRIDE).isZero();

            Path probe = privateDirectory.resolve("written-by-postgres");
            assertThatThrownBy(() -> statement.execute("COPY (SELECT 1) TO '" + probe + "'"))
                    .isInstanceOf(SQLException.class).hasMessageContaining("Permission denied");
            assertThat(probe).doesNotExist();
        }
    }

    private static long capabilities(long pid, String field) throws Exception {
        List<String> status = Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"));
        return status.stream().filter(line -> line.startsWith(field + ":"))
                .map(line -> Long.parseUnsignedLong(line.substring(field.length() + 1).trim(), 16))
                .findFirst().orElseThrow();
    }
}
