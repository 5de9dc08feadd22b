package io.pgvs3.bench.pgvs3;

import javax.sql.DataSource;

import io.pgvs3.bench.BenchDatabase;
import io.pgvs3.core.catalog.CatalogMigrator;
import io.pgvs3.core.catalog.QueueCatalog;
import io.pgvs3.core.job.JobStore;
import io.pgvs3.core.stream.StreamStore;

import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The pgvs3 core library on a connection pool, without Spring Boot: what an application wires by hand.
 */
public record Core(DataSource dataSource, QueueCatalog catalog, StreamStore streams, JobStore jobs) {

    public static Core on(BenchDatabase database, int poolSize, boolean synchronousCommit) {
        DataSource dataSource = database.pool(poolSize, synchronousCommit);
        new CatalogMigrator(dataSource).migrate();
        JdbcTemplate jdbc = new JdbcTemplate(dataSource);
        QueueCatalog catalog = new QueueCatalog(jdbc);
        return new Core(dataSource, catalog, new StreamStore(jdbc, catalog), new JobStore(jdbc, catalog));
    }
}
