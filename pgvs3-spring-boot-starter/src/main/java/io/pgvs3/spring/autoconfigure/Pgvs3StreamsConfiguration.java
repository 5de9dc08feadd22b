package io.pgvs3.spring.autoconfigure;

import javax.sql.DataSource;

import io.pgvs3.core.catalog.QueueCatalog;
import io.pgvs3.core.notify.NotificationHub;
import io.pgvs3.core.stream.StreamStore;

import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Beans of the streams view: the store and the shared LISTEN connection (the stream steps of the maintenance pass
 * are {@link io.pgvs3.spring.maintenance.QueueMaintenanceTasks}).
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
}
