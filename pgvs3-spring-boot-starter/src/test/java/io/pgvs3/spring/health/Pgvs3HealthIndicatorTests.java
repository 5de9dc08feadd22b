package io.pgvs3.spring.health;

import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.pgvs3.spring.autoconfigure.Pgvs3HealthProperties;
import io.pgvs3.spring.it.TestDataSource;
import io.pgvs3.spring.maintenance.MaintenanceScheduler;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;

import static org.assertj.core.api.Assertions.assertThat;

@SuppressWarnings("unchecked")
class Pgvs3HealthIndicatorTests {

    @RegisterExtension
    static final TestDataSource database = TestDataSource.withCatalog();

    @Test
    void upWithTheDatabaseVersion() {
        Health health = new Pgvs3HealthIndicator(database.get(), null, null, new Pgvs3HealthProperties()).health();
        assertThat(health.getStatus()).isEqualTo(Status.UP);
        assertThat((Map<String, Object>) health.getDetails().get("database")).containsKey("version");
        assertThat((Map<String, Object>) health.getDetails().get("maintenance")).containsEntry("enabled", false);
    }

    @Test
    void downWithinTheTimeoutWhenTheDatabaseDoesNotAnswer() {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl("jdbc:postgresql://10.255.255.1:5432/none");
        config.setConnectionTimeout(30_000);
        config.setInitializationFailTimeout(-1);
        try (HikariDataSource unreachable = new HikariDataSource(config)) {
            Pgvs3HealthProperties settings = new Pgvs3HealthProperties();
            settings.setTimeout(Duration.ofMillis(500));
            Pgvs3HealthIndicator indicator = new Pgvs3HealthIndicator(unreachable, null, null, settings);
            long start = System.nanoTime();
            Health health = indicator.health();
            Health again = indicator.health();
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(3));
            assertThat(health.getStatus()).isEqualTo(Status.DOWN);
            assertThat(again.getStatus()).isEqualTo(Status.DOWN);
        }
    }

    @Test
    void reportsTheOldestTransactionHoldingTheXminHorizon() throws Exception {
        try (Connection holder = database.get().getConnection(); Statement statement = holder.createStatement()) {
            holder.setAutoCommit(false);
            statement.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ");
            statement.execute("SELECT count(*) FROM pg_class");
            int pid;
            try (var rs = statement.executeQuery("SELECT pg_backend_pid()")) {
                rs.next();
                pid = rs.getInt(1);
            }
            Thread.sleep(1100);
            Pgvs3HealthProperties settings = new Pgvs3HealthProperties();
            settings.setXminHorizonAge(Duration.ofMillis(500));
            Health health = new Pgvs3HealthIndicator(database.get(), null, null, settings).health();
            assertThat(health.getStatus()).isEqualTo(Status.UP);
            Map<String, Object> xmin = (Map<String, Object>) health.getDetails().get("xminHorizon");
            assertThat(xmin).containsEntry("kind", "backend").containsEntry("pid", Integer.toString(pid))
                    .containsKeys("since", "queryStart", "xminAge");
            List<String> warnings = (List<String>) health.getDetails().get("warnings");
            assertThat(warnings).singleElement().asString().contains("backend " + pid);
            holder.rollback();
        }
    }

    @Test
    void downWhenMaintenanceHasNotCompletedForTooLong() {
        MaintenanceScheduler neverRun = new MaintenanceScheduler(
                new io.pgvs3.core.maintenance.MaintenancePass(database.get(), List.of()), Duration.ofSeconds(1));
        Pgvs3HealthProperties settings = new Pgvs3HealthProperties();
        settings.setMaintenanceStaleAfter(Duration.ZERO);
        Health health = new Pgvs3HealthIndicator(database.get(), neverRun, null, settings).health();
        assertThat(health.getStatus()).isEqualTo(Status.DOWN);
        assertThat((Map<String, Object>) health.getDetails().get("maintenance")).containsKey("problem");
    }

    @Test
    void upWhileMaintenanceRuns() throws Exception {
        MaintenanceScheduler scheduler = new MaintenanceScheduler(
                new io.pgvs3.core.maintenance.MaintenancePass(database.get(), List.of()), Duration.ofMillis(20));
        scheduler.start();
        try {
            long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
            while (scheduler.lastCompletedAt() == null && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertThat(scheduler.lastCompletedAt()).as("a maintenance pass completed").isNotNull();
            Pgvs3HealthProperties settings = new Pgvs3HealthProperties();
            settings.setMaintenanceStaleAfter(Duration.ofSeconds(2));
            Health health = new Pgvs3HealthIndicator(database.get(), scheduler, null, settings).health();
            assertThat(health.getStatus()).isEqualTo(Status.UP);
            assertThat((Map<String, Object>) health.getDetails().get("maintenance")).doesNotContainKey("problem")
                    .containsEntry("lastCompletedAt", scheduler.lastCompletedAt().toString());
        }
        finally {
            scheduler.stop();
        }
    }
}
