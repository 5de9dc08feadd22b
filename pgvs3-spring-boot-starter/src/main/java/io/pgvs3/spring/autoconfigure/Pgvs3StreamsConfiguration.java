package io.pgvs3.spring.autoconfigure;

import javax.sql.DataSource;

import io.pgvs3.core.catalog.QueueCatalog;
import io.pgvs3.core.maintenance.MaintenanceTask;
import io.pgvs3.core.notify.NotificationHub;
import io.pgvs3.core.stream.StreamMaintenanceTask;
import io.pgvs3.core.stream.StreamStore;

import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Beans of the streams view: the store, the shared LISTEN connection and the stream steps of the maintenance pass
 * (retries, rotation, tick cleanup).
 */
@Configuration(proxyBeanMethods = false)
class Pgvs3StreamsConfiguration {

    @Bean
    @ConditionalOnMissingBean
    StreamStore pgvs3StreamStore(DataSource dataSource, QueueCatalog catalog) {
        return new StreamStore(new JdbcTemplate(dataSource), catalog);
    }

    /** Connects on the first {@code listen}, so an application that never waits for notifications holds no connection. */
    @Bean
    @ConditionalOnMissingBean
    NotificationHub pgvs3NotificationHub(DataSource dataSource) {
        return new NotificationHub(dataSource);
    }

    @Bean
    @ConditionalOnMissingBean(name = "pgvs3StreamRetriesTask")
    MaintenanceTask pgvs3StreamRetriesTask(QueueCatalog catalog, StreamStore streams) {
        return StreamMaintenanceTask.retries(catalog, streams);
    }

    @Bean
    @ConditionalOnMissingBean(name = "pgvs3StreamTickerTask")
    MaintenanceTask pgvs3StreamTickerTask(QueueCatalog catalog, StreamStore streams) {
        return StreamMaintenanceTask.ticker(catalog, streams);
    }

    @Bean
    @ConditionalOnMissingBean(name = "pgvs3StreamRotationTask")
    MaintenanceTask pgvs3StreamRotationTask(QueueCatalog catalog, StreamStore streams) {
        return StreamMaintenanceTask.rotation(catalog, streams);
    }

    @Bean
    @ConditionalOnMissingBean(name = "pgvs3StreamTickCleanupTask")
    MaintenanceTask pgvs3StreamTickCleanupTask(QueueCatalog catalog, StreamStore streams) {
        return StreamMaintenanceTask.tickCleanup(catalog, streams);
    }
}
