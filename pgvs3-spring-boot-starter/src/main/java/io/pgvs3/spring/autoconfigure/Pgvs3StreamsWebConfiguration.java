package io.pgvs3.spring.autoconfigure;

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
    StreamLongPoll pgvs3StreamLongPoll(NotificationHub hub, QueueCatalog catalog, Pgvs3Properties properties) {
        StreamLongPoll longPoll = new StreamLongPoll(hub, properties.getStreams().getLongPollThreads());
        catalog.onDrop(longPoll::forget);
        return longPoll;
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
