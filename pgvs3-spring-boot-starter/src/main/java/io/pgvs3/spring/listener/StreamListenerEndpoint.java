package io.pgvs3.spring.listener;

import java.lang.reflect.Method;

/**
 * A stream listener method and how to run it, as read from {@code @StreamListener}.
 *
 * @param id            the container id
 * @param queue         the queue to consume
 * @param consumer      the consumer (cursor) name
 * @param concurrency   number of cooperative members; 1 consumes as the plain consumer
 * @param autoStartup   whether the container starts with the application
 * @param subscribe     whether to subscribe the consumer when the container starts
 * @param maxBatchSize  largest batch to receive at once
 * @param transactional whether handler work and the ack commit in one database transaction
 * @param bean          the bean that declares the method
 * @param method        the listener method
 * @param converter     the payload converter, or null for the default
 */
public record StreamListenerEndpoint(String id, String queue, String consumer, int concurrency,
        boolean autoStartup, boolean subscribe, int maxBatchSize, boolean transactional, Object bean,
        Method method, StreamMessageConverter converter) {

    public StreamListenerEndpoint {
        if (concurrency < 1) {
            throw new IllegalArgumentException("concurrency of stream listener " + id + " must be at least 1");
        }
        if (maxBatchSize < 1) {
            throw new IllegalArgumentException("maxBatchSize of stream listener " + id + " must be at least 1");
        }
    }
}
