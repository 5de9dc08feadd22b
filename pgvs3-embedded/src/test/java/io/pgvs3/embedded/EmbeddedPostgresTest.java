package io.pgvs3.embedded;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

@Tag("slow")
class EmbeddedPostgresTest {

    @TempDir
    Path dataDirectory;

    @Test
    void keepsItsDataAcrossRestartsAndStopsCleanly() throws SQLException {
        int port;
        String password;
        try (EmbeddedPostgres postgres = EmbeddedPostgres.builder().dataDirectory(dataDirectory).start()) {
            port = postgres.port();
            password = postgres.password();
            try (Connection connection = connect(postgres); Statement statement = connection.createStatement()) {
                statement.execute("CREATE TABLE kept (value text)");
                statement.execute("INSERT INTO kept VALUES ('survives')");
                try (ResultSet rs = statement.executeQuery("SHOW server_version_num")) {
                    rs.next();
                    assertThat(rs.getInt(1)).isGreaterThanOrEqualTo(170000);
                }
            }
        }
        int stoppedPort = port;
        assertThatThrownBy(() -> DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + stoppedPort + "/postgres",
                "postgres", password)).isInstanceOf(SQLException.class);

        try (EmbeddedPostgres again = EmbeddedPostgres.builder().dataDirectory(dataDirectory).start();
                Connection connection = connect(again);
                Statement statement = connection.createStatement();
                ResultSet rs = statement.executeQuery("SELECT value FROM kept")) {
            assertThat(again.password()).as("the password is kept across restarts").isEqualTo(password);
            assertThat(rs.next()).isTrue();
            assertThat(rs.getString(1)).isEqualTo("survives");
        }
    }

    @Test
    void aLoginNeedsTheGeneratedPassword() throws SQLException {
        try (EmbeddedPostgres postgres = EmbeddedPostgres.builder().dataDirectory(dataDirectory).start()) {
            assertThat(postgres.password()).hasSizeGreaterThanOrEqualTo(40);
            assertThat(postgres.jdbcUrl("postgres")).doesNotContain(postgres.password());

            assertThatThrownBy(() -> DriverManager.getConnection(postgres.jdbcUrl("postgres")))
                    .isInstanceOf(SQLException.class)
                    .hasMessageContaining("no password was provided");
            assertThatThrownBy(() -> DriverManager.getConnection(postgres.jdbcUrl("postgres"), "postgres", "postgres"))
                    .isInstanceOf(SQLException.class)
                    .satisfies(ex -> assertThat(((SQLException) ex).getSQLState()).isEqualTo("28P01"));
            assertThatThrownBy(() -> DriverManager.getConnection(postgres.jdbcUrl("postgres"), "postgres",
                    postgres.password() + "x")).isInstanceOf(SQLException.class);

            try (Connection connection = connect(postgres); Statement statement = connection.createStatement()) {
                assertThat(single(statement, "SHOW listen_addresses")).isEqualTo("127.0.0.1");
                assertThat(single(statement, "SHOW unix_socket_directories")).isEmpty();
                assertThat(single(statement, "SHOW password_encryption")).isEqualTo("scram-sha-256");
                assertThat(single(statement, "SELECT count(*) FROM pg_hba_file_rules WHERE auth_method <> 'scram-sha-256' "
                        + "OR error IS NOT NULL")).isEqualTo("0");
                assertThat(single(statement, "SELECT rolpassword FROM pg_authid WHERE rolname = 'postgres'"))
                        .startsWith("SCRAM-SHA-256$");
            }
        }
    }

    @Test
    void thePasswordFileIsReadableByItsOwnerOnly() throws Exception {
        try (EmbeddedPostgres postgres = EmbeddedPostgres.builder().dataDirectory(dataDirectory).start()) {
            Path file = dataDirectory.resolve(SuperuserPassword.FILE_NAME);
            assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file))).isEqualTo("rw-------");
            assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(dataDirectory))).isEqualTo("rwx------");
            assertThat(Files.getOwner(file)).isEqualTo(Files.getOwner(dataDirectory));
            assertThat(Files.readString(file, StandardCharsets.UTF_8).strip()).isEqualTo(postgres.password());
        }
    }

    @Test
    void aPasswordFileOthersCouldReadIsReplacedByANewPassword() throws Exception {
        String first;
        try (EmbeddedPostgres postgres = EmbeddedPostgres.builder().dataDirectory(dataDirectory).start()) {
            first = postgres.password();
        }
        Path file = dataDirectory.resolve(SuperuserPassword.FILE_NAME);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r--r--"));
        try (EmbeddedPostgres postgres = EmbeddedPostgres.builder().dataDirectory(dataDirectory).start()) {
            assertThat(postgres.password()).isNotEqualTo(first);
            assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file))).isEqualTo("rw-------");
            try (Connection ignored = connect(postgres)) {
                assertThat(ignored.isValid(5)).isTrue();
            }
            String old = first;
            assertThatThrownBy(() -> DriverManager.getConnection(postgres.jdbcUrl("postgres"), "postgres", old))
                    .isInstanceOf(SQLException.class);
        }
    }

    @Test
    void aStartThatDiedBetweenStoringAndSettingThePasswordIsCompletedByTheNext() throws Exception {
        String password;
        try (EmbeddedPostgres postgres = EmbeddedPostgres.builder().dataDirectory(dataDirectory).start();
                Connection connection = connect(postgres); Statement statement = connection.createStatement()) {
            password = postgres.password();
            statement.execute("ALTER ROLE postgres PASSWORD 'not-the-stored-one'");
        }
        // as a start leaves it when it dies after storing the password: the role's password not yet set, pg_hba.conf
        // still initdb's refusal of every login, and no mark that both were done
        Files.writeString(dataDirectory.resolve(ClientAuthentication.FILE_NAME),
                "local all all reject\nhost all all 127.0.0.1/32 reject\n", StandardCharsets.UTF_8);
        Files.delete(dataDirectory.resolve(SecuredMark.FILE_NAME));
        try (EmbeddedPostgres postgres = EmbeddedPostgres.builder().dataDirectory(dataDirectory).start();
                Connection connection = connect(postgres)) {
            assertThat(postgres.password()).isEqualTo(password);
            assertThat(connection.isValid(5)).isTrue();
        }
    }

    @Test
    void aTrustDataDirectoryOfAnEarlierVersionIsUpgradedInPlace() throws Exception {
        int oldPort = EmbeddedPostgres.freePort();
        Path installation = PostgresBinaries.install(Path.of(System.getProperty("java.io.tmpdir")));
        PostgresTools tools = new PostgresTools(installation, dataDirectory,
                OsUser.forServer(null, List.of(dataDirectory, installation)));
        // what earlier versions did: initdb with trust, the server on 127.0.0.1 without a password
        tools.osUser().takeOwnership(dataDirectory);
        Files.setPosixFilePermissions(dataDirectory, PosixFilePermissions.fromString("rwx------"));
        tools.run(List.of(tools.bin("initdb"), "-D", dataDirectory.toString(), "-U", "postgres", "-A", "trust",
                "-E", "UTF8", "--locale=C", "--no-instructions"), Duration.ofMinutes(3));
        tools.run(List.of(tools.bin("pg_ctl"), "-D", dataDirectory.toString(), "-l",
                dataDirectory.resolve("postgres.log").toString(), "-o",
                "-p " + oldPort + " -c listen_addresses=127.0.0.1 -c unix_socket_directories=", "-w", "-t", "120", "start"),
                Duration.ofMinutes(3));
        try (Connection connection = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + oldPort
                + "/postgres?user=postgres"); Statement statement = connection.createStatement()) {
            statement.execute("CREATE TABLE kept (value text)");
            statement.execute("INSERT INTO kept VALUES ('from the trust era')");
        }
        tools.run(List.of(tools.bin("pg_ctl"), "-D", dataDirectory.toString(), "-m", "fast", "-w", "stop"),
                Duration.ofMinutes(2));
        assertThat(ClientAuthentication.allowsTrust(dataDirectory)).isTrue();
        assertThat(dataDirectory.resolve(SuperuserPassword.FILE_NAME)).doesNotExist();

        try (EmbeddedPostgres postgres = EmbeddedPostgres.builder().dataDirectory(dataDirectory).start()) {
            assertThat(Files.readString(dataDirectory.resolve(SuperuserPassword.FILE_NAME)).strip())
                    .isEqualTo(postgres.password());
            assertThat(ClientAuthentication.allowsTrust(dataDirectory)).isFalse();
            assertThatThrownBy(() -> DriverManager.getConnection(postgres.jdbcUrl("postgres")))
                    .isInstanceOf(SQLException.class);
            try (Connection connection = connect(postgres); Statement statement = connection.createStatement()) {
                assertThat(single(statement, "SELECT value FROM kept")).isEqualTo("from the trust era");
                assertThat(single(statement, "SELECT count(*) FROM pg_hba_file_rules WHERE auth_method = 'trust'"))
                        .isEqualTo("0");
            }
        }
    }

    @Test
    void aSecondStartOnADataDirectoryInUseFailsAndLeavesTheServerRunning() throws SQLException {
        try (EmbeddedPostgres postgres = EmbeddedPostgres.builder().dataDirectory(dataDirectory).start()) {
            assertThatThrownBy(() -> EmbeddedPostgres.builder().dataDirectory(dataDirectory).start())
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("is in use by another running process");
            try (Connection connection = connect(postgres)) {
                assertThat(connection.isValid(5)).isTrue();
            }
        }
    }

    static Connection connect(EmbeddedPostgres postgres) throws SQLException {
        return DriverManager.getConnection(postgres.jdbcUrl("postgres"), postgres.username(), postgres.password());
    }

    private static String single(Statement statement, String sql) throws SQLException {
        try (ResultSet rs = statement.executeQuery(sql)) {
            assertThat(rs.next()).isTrue();
            return rs.getString(1);
        }
    }
}
