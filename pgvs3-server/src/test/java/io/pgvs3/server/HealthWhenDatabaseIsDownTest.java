package io.pgvs3.server;

import java.util.Map;

import com.zaxxer.hikari.HikariDataSource;
import io.pgvs3.spring.web.SystemController;
import io.pgvs3.test.TestPostgres;
import org.junit.jupiter.api.Test;

import org.springframework.http.ResponseEntity;
import org.springframework.mock.web.MockHttpServletRequest;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Health must answer quickly and say {@code degraded} when PostgreSQL cannot be reached.
 */
class HealthWhenDatabaseIsDownTest {

    @Test
    void answers503DegradedWithinTheTimeout() {
        try (HikariDataSource unreachable = new HikariDataSource()) {
            unreachable.setJdbcUrl("jdbc:postgresql://127.0.0.1:1/postgres?user=postgres&connectTimeout=1");
            unreachable.setInitializationFailTimeout(-1);
            unreachable.setConnectionTimeout(30_000);
            long start = System.nanoTime();
            ResponseEntity<Map<String, Object>> health = new SystemController(unreachable).health(new MockHttpServletRequest());
            long elapsedMillis = (System.nanoTime() - start) / 1_000_000;

            assertThat(health.getStatusCode().value()).isEqualTo(503);
            assertThat(health.getBody()).containsEntry("status", "degraded");
            @SuppressWarnings("unchecked")
            Map<String, Object> backend = (Map<String, Object>) health.getBody().get("backend");
            assertThat(backend).containsEntry("status", "error");
            assertThat(elapsedMillis).isLessThan(10_000);
        }
    }

    @Test
    void answers200WhenTheDatabaseIsUp() {
        try (HikariDataSource reachable = TestPostgres.get().newDatabase().newDataSource(2)) {
            ResponseEntity<Map<String, Object>> health = new SystemController(reachable).health(new MockHttpServletRequest());
            assertThat(health.getStatusCode().value()).isEqualTo(200);
            assertThat(health.getBody()).containsEntry("status", "ok");
        }
    }
}
