package io.pgvs3.spring.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a bean method as the listener of one stream consumer. Every consumer of a queue receives every message;
 * the members of one consumer ({@link #concurrency()}) share its messages.
 * <p>
 * The method takes one parameter: the payload type {@code T}, {@code StreamMessage<T>} (payload with id, headers,
 * retry count and batch id), or {@code List<T>} / {@code List<StreamMessage<T>>} to receive whole batches.
 * A message whose handling throws is nacked and delivered again after the configured back-off, and dead-lettered
 * once it exhausted the queue's {@code max_retries}; the rest of the batch is still processed and the batch acked.
 * String attributes accept {@code ${…}} placeholders.
 */
@Target({ ElementType.METHOD, ElementType.ANNOTATION_TYPE })
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface StreamListener {

    /** Container id, used with the registry; defaults to {@code <queue>.<consumer>}. */
    String id() default "";

    /** The queue to consume. */
    String queue();

    /** The consumer (cursor) name; defaults to the {@link #id()}. */
    String consumer() default "";

    /** Cooperative members sharing this consumer's batches in this application. */
    String concurrency() default "1";

    /**
     * Largest batch to receive, and to hand to a batch listener, at once (the {@code max} of each receive, so also
     * what one ack covers); defaults to {@code pgvs3.listener.max-batch-size}. Events committed between two ticks that
     * are more come as consecutive batches of this size.
     */
    String maxBatchSize() default "";

    /** Whether to start with the application; defaults to {@code pgvs3.listener.auto-startup}. */
    String autoStartup() default "";

    /** Whether to subscribe the consumer when the container starts. */
    boolean subscribe() default true;

    /** Run the handler's database work, the nacks and the ack in one transaction. */
    boolean transactional() default false;

    /** Name of a {@code StreamMessageConverter} bean to convert payloads with, instead of the factory's. */
    String converter() default "";

    /**
     * Name of a {@code ListenerErrorHandler} bean that decides what follows a failed message, instead of the
     * container factory's (by default a {@code DefaultListenerErrorHandler} on the {@code pgvs3ListenerBackOff}).
     */
    String errorHandler() default "";

    /**
     * Name of the {@code Pgvs3ListenerContainerFactory} bean that builds this listener's container; defaults to
     * {@code pgvs3ListenerContainerFactory}.
     */
    String containerFactory() default "";

    /**
     * Where the consumer starts when its container subscribes it for the first time: {@code latest} (the default:
     * messages appended from now on), {@code earliest} (the oldest retained message) or a tick id. An existing
     * subscription keeps its cursor.
     */
    String startFrom() default "latest";
}
