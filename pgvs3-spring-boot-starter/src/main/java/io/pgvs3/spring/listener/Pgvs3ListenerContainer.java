package io.pgvs3.spring.listener;

import java.time.Duration;

/**
 * A running consumer of one queue: a stream listener container (one consumer, its cooperative members) or a job
 * handler container (the handlers of one queue). Managed through {@link Pgvs3ListenerEndpointRegistry}.
 */
public interface Pgvs3ListenerContainer {

    /** The id the registry knows this container by. */
    String id();

    String queue();

    int concurrency();

    void start();

    /** Stops fetching, lets in-flight work finish within {@code timeout}, then releases what is left. */
    void stop(Duration timeout);

    /** Stops fetching new work; work in flight finishes. Resumed by {@link #resume()}. */
    void pause();

    void resume();

    boolean isRunning();

    boolean isPaused();

    /** Fetches at once instead of waiting for the next notification or poll. */
    void wakeUp();
}
