package io.pgvs3.spring.listener;

import java.lang.reflect.Method;

/**
 * A stream listener method and how to run it, as read from {@code @StreamListener}.
 *
 * @param id               the container id
 * @param queue            the queue to consume
 * @param consumer         the consumer (cursor) name
 * @param concurrency      number of cooperative members; 1 consumes as the plain consumer
 * @param autoStartup      whether the container starts with the application
 * @param subscribe        whether to subscribe the consumer when the container starts
 * @param maxBatchSize     largest batch to receive at once
 * @param transactional    whether handler work and the ack commit in one database transaction
 * @param bean             the bean that declares the method
 * @param method           the listener method
 * @param converter        the payload converter, or null for the factory's
 * @param errorHandler     the error handler, or null for the factory's
 * @param containerFactory the factory that builds the container, or null for the registry's default
 * @param startFrom        where a new subscription starts: null at the latest tick, 0 at the oldest retained tick,
 *                         else at that tick (an existing subscription keeps its cursor)
 */
public record StreamListenerEndpoint(String id, String queue, String consumer, int concurrency,
        boolean autoStartup, boolean subscribe, int maxBatchSize, boolean transactional, Object bean,
        Method method, StreamMessageConverter converter, ListenerErrorHandler errorHandler,
        Pgvs3ListenerContainerFactory containerFactory, Long startFrom) {

    public StreamListenerEndpoint {
        if (concurrency < 1) {
            throw new IllegalArgumentException("concurrency of stream listener " + id + " must be at least 1");
        }
        if (maxBatchSize < 1) {
            throw new IllegalArgumentException("maxBatchSize of stream listener " + id + " must be at least 1");
        }
        if (startFrom != null && startFrom < 0) {
            throw new IllegalArgumentException("startFrom of stream listener " + id + " must not be negative");
        }
    }

    public StreamListenerEndpoint(String id, String queue, String consumer, int concurrency, boolean autoStartup,
            boolean subscribe, int maxBatchSize, boolean transactional, Object bean, Method method,
            StreamMessageConverter converter) {
        this(id, queue, consumer, concurrency, autoStartup, subscribe, maxBatchSize, transactional, bean, method,
                converter, null, null, null);
    }
}
