package io.pgvs3.spring.autoconfigure;

import javax.sql.DataSource;

import io.pgvs3.core.catalog.QueueCatalog;
import io.pgvs3.core.notify.NotificationHub;
import io.pgvs3.core.stream.StreamAppends;
import io.pgvs3.core.stream.StreamConsumers;
import io.pgvs3.core.stream.StreamDeadLetters;
import io.pgvs3.core.stream.StreamDelivery;
import io.pgvs3.core.stream.StreamIdleChecks;
import io.pgvs3.core.stream.StreamLogMaintenance;
import io.pgvs3.core.stream.StreamQueueSettings;
import io.pgvs3.core.stream.StreamStore;

import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Beans of the streams view: one store per concern and the {@link StreamStore} over them, and the shared LISTEN
 * connection (the stream steps of the maintenance pass are {@link io.pgvs3.spring.maintenance.QueueMaintenanceTasks}).
 */
@Configuration(proxyBeanMethods = false)
class Pgvs3StreamsConfiguration {

    @Bean
    @ConditionalOnMissingBean
    StreamAppends pgvs3StreamAppends(DataSource dataSource, QueueCatalog catalog, NotificationHub notifications) {
        return new StreamAppends(new JdbcTemplate(dataSource), catalog, notifications);
    }

    @Bean
    @ConditionalOnMissingBean
    StreamDelivery pgvs3StreamDelivery(DataSource dataSource, QueueCatalog catalog) {
        return new StreamDelivery(new JdbcTemplate(dataSource), catalog);
    }

    @Bean
    @ConditionalOnMissingBean
    StreamConsumers pgvs3StreamConsumers(DataSource dataSource, QueueCatalog catalog) {
        return new StreamConsumers(new JdbcTemplate(dataSource), catalog);
    }

    @Bean
    @ConditionalOnMissingBean
    StreamDeadLetters pgvs3StreamDeadLetters(DataSource dataSource, QueueCatalog catalog) {
        return new StreamDeadLetters(new JdbcTemplate(dataSource), catalog);
    }

    @Bean
    @ConditionalOnMissingBean
    StreamQueueSettings pgvs3StreamQueueSettings(DataSource dataSource, QueueCatalog catalog) {
        return new StreamQueueSettings(new JdbcTemplate(dataSource), catalog);
    }

    @Bean
    @ConditionalOnMissingBean
    StreamLogMaintenance pgvs3StreamLogMaintenance(DataSource dataSource, QueueCatalog catalog) {
        return new StreamLogMaintenance(new JdbcTemplate(dataSource), catalog);
    }

    @Bean
    @ConditionalOnMissingBean
    StreamIdleChecks pgvs3StreamIdleChecks(DataSource dataSource, QueueCatalog catalog) {
        return new StreamIdleChecks(new JdbcTemplate(dataSource), catalog);
    }

    @Bean
    @ConditionalOnMissingBean
    StreamStore pgvs3StreamStore(StreamAppends appends, StreamDelivery delivery, StreamConsumers consumers,
            StreamDeadLetters deadLetters, StreamQueueSettings settings, StreamLogMaintenance maintenance,
            StreamIdleChecks idleChecks) {
        return new StreamStore(appends, delivery, consumers, deadLetters, settings, maintenance, idleChecks);
    }

    /** Connects on the first {@code listen}, so an application that never waits for notifications holds no connection. */
    @Bean
    @ConditionalOnMissingBean
    NotificationHub pgvs3NotificationHub(DataSource dataSource) {
        return new NotificationHub(dataSource);
    }
}
