package io.pgvs3.spring.listener;

import java.lang.reflect.Method;

/**
 * A job handler method, as read from {@code @JobHandler}.
 *
 * @param type             the job type it handles
 * @param queue            the queue it fetches from
 * @param concurrency      how many jobs of this type may run at once
 * @param autoStartup      whether its container starts with the application
 * @param bean             the bean that declares the method
 * @param method           the handler method
 * @param errorHandler     the error handler, or null for the factory's
 * @param containerFactory the factory that builds the queue's container, or null for the registry's default
 */
public record JobHandlerEndpoint(String type, String queue, int concurrency, boolean autoStartup, Object bean,
        Method method, ListenerErrorHandler errorHandler, Pgvs3ListenerContainerFactory containerFactory) {

    public JobHandlerEndpoint {
        if (type == null || type.isBlank()) {
            throw new IllegalArgumentException("@JobHandler on " + method + " needs a type");
        }
        if (concurrency < 1) {
            throw new IllegalArgumentException("concurrency of job handler " + type + " must be at least 1");
        }
    }

    public JobHandlerEndpoint(String type, String queue, int concurrency, boolean autoStartup, Object bean,
            Method method) {
        this(type, queue, concurrency, autoStartup, bean, method, null, null);
    }
}
