package io.pgvs3.core.catalog;

import com.zaxxer.hikari.HikariDataSource;
import io.pgvs3.test.TestPostgres;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class QueueStatsQueryTest {

    private static HikariDataSource dataSource;
    private static JdbcTemplate jdbc;

    @BeforeAll
    static void database() {
        dataSource = TestPostgres.get().newDatabase().newDataSource(4);
        new CatalogMigrator(dataSource).migrate();
        jdbc = new JdbcTemplate(dataSource);
    }

    @AfterAll
    static void close() {
        dataSource.close();
    }

    @Test
    void aNewQueueHasNoJobsAndNoConsumers() {
        QueueName queue = QueueName.of("stats-new");
        new QueueCatalog(jdbc).ensure(queue);
        QueueStatsQuery stats = new QueueStatsQuery(jdbc);
        assertThat(stats.jobDepth(queue)).isEqualTo(new QueueStatsQuery.JobDepth(0, 0, 0, 0, 0));
        assertThat(stats.jobDepth(queue).byState()).containsOnlyKeys("available", "active", "scheduled", "retryable",
                "dead_letter");
        assertThat(stats.consumersJson(queue)).isIn(null, "[]");
    }

    @Test
    void aQueueThatDoesNotExistFailsAsAMissingNamespace() {
        QueueStatsQuery stats = new QueueStatsQuery(jdbc);
        assertThatThrownBy(() -> stats.jobDepth(QueueName.of("stats-missing"))).isInstanceOf(DataAccessException.class)
                .matches(QueueCatalog::isMissingNamespace);
        assertThatThrownBy(() -> stats.consumersJson(QueueName.of("stats-missing")))
                .matches(QueueCatalog::isMissingNamespace);
    }
}
