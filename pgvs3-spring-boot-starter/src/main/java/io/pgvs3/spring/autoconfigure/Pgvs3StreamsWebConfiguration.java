package io.pgvs3.spring.autoconfigure;

import java.sql.SQLException;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import io.pgvs3.core.catalog.QueueCatalog;
import io.pgvs3.core.notify.NotificationHub;
import io.pgvs3.core.stream.StreamStore;
import io.pgvs3.spring.core.Pgvs3Metrics;
import io.pgvs3.spring.web.streams.StreamAcksController;
import io.pgvs3.spring.web.streams.StreamConsumersController;
import io.pgvs3.spring.web.streams.StreamLongPoll;
import io.pgvs3.spring.web.streams.StreamMessagesController;
import io.pgvs3.spring.web.streams.StreamQueueController;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Controllers of the streams view's HTTP routes.
 */
@Configuration(proxyBeanMethods = false)
class Pgvs3StreamsWebConfiguration {

    @Bean
    @ConditionalOnMissingBean
    StreamLongPoll pgvs3StreamLongPoll(NotificationHub hub, StreamStore streams, QueueCatalog catalog,
            DataSource dataSource, Pgvs3Properties properties) {
        int threads = properties.getStreams().getLongPollThreads();
        StreamLongPoll longPoll = new StreamLongPoll(hub, streams::appendedSince, streams::idle,
                threads > 0 ? threads : longPollThreads(dataSource));
        catalog.onDrop(longPoll::forget);
        return longPoll;
    }

    /**
     * Half the connection pool (2 to 16): hundreds of long-polls arriving at once queue on the workers, and the
     * other half of the pool stays free for other requests.
     */
    static int longPollThreads(DataSource dataSource) {
        int pool = 10;
        try {
            if (dataSource.isWrapperFor(HikariDataSource.class)) {
                pool = dataSource.unwrap(HikariDataSource.class).getMaximumPoolSize();
            }
        }
        catch (SQLException ex) {
            // not a Hikari pool: Hikari's default size
        }
        return Math.max(2, Math.min(16, pool / 2));
    }

    @Bean
    @ConditionalOnMissingBean
    StreamMessagesController pgvs3StreamMessagesController(StreamStore streams, Pgvs3JsonMapper json,
            Pgvs3Properties properties, ObjectProvider<Pgvs3Metrics> metrics) {
        return new StreamMessagesController(streams, json.mapper(), properties.getStreams().getMaxPayloadBytes(),
                metrics.getIfAvailable(() -> Pgvs3Metrics.NOOP));
    }

    @Bean
    @ConditionalOnMissingBean
    StreamConsumersController pgvs3StreamConsumersController(StreamStore streams, StreamLongPoll longPoll,
            Pgvs3Properties properties) {
        return new StreamConsumersController(streams, longPoll, properties.getStreams().getMaxWait());
    }

    @Bean
    @ConditionalOnMissingBean
    StreamAcksController pgvs3StreamAcksController(StreamStore streams) {
        return new StreamAcksController(streams);
    }

    @Bean
    @ConditionalOnMissingBean
    StreamQueueController pgvs3StreamQueueController(StreamStore streams) {
        return new StreamQueueController(streams);
    }
}
