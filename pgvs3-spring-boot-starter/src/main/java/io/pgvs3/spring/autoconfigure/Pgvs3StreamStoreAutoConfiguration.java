package io.pgvs3.spring.autoconfigure;

import javax.sql.DataSource;

import io.pgvs3.core.catalog.QueueCatalog;
import io.pgvs3.core.notify.NotificationHub;
import io.pgvs3.core.stream.StreamMaintenanceTask;
import io.pgvs3.core.stream.StreamStore;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The stream store with its maintenance tasks and the shared {@code LISTEN} connection, for applications whose
 * core configuration did not define them already.
 */
@AutoConfiguration(after = Pgvs3AutoConfiguration.class)
@ConditionalOnBean(QueueCatalog.class)
public class Pgvs3StreamStoreAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    public NotificationHub pgvs3NotificationHub(DataSource dataSource) {
        return new NotificationHub(dataSource);
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnMissingBean(StreamStore.class)
    static class StreamStoreConfiguration {

        @Bean
        StreamStore pgvs3StreamStore(DataSource dataSource, QueueCatalog catalog) {
            return new StreamStore(new JdbcTemplate(dataSource), catalog);
        }

        @Bean
        StreamMaintenanceTask pgvs3StreamRetriesTask(QueueCatalog catalog, StreamStore store) {
            return StreamMaintenanceTask.retries(catalog, store);
        }

        @Bean
        StreamMaintenanceTask pgvs3StreamRotationTask(QueueCatalog catalog, StreamStore store) {
            return StreamMaintenanceTask.rotation(catalog, store);
        }

        @Bean
        StreamMaintenanceTask pgvs3StreamTickCleanupTask(QueueCatalog catalog, StreamStore store) {
            return StreamMaintenanceTask.tickCleanup(catalog, store);
        }
    }
}
