package io.pgvs3.spring.autoconfigure;

import java.time.Duration;

/**
 * Configuration under {@code pgvs3.listener.*}.
 */
public class Pgvs3ListenerProperties {

    /** Whether @StreamListener and @JobHandler containers start once the application is ready. */
    private boolean autoStartup = true;

    /** Whether containers wake on LISTEN notifications; turn off behind PgBouncer transaction pooling. */
    private boolean listen = true;

    /** First wait after an empty receive when polling (no notifications). */
    private Duration minPollInterval = Duration.ofMillis(50);

    /** Longest wait the polling backoff of stream listeners reaches. */
    private Duration maxPollInterval = Duration.ofSeconds(5);

    /** Safety-net poll of stream listeners while notifications arrive. */
    private Duration listenPollInterval = Duration.ofSeconds(30);

    /** Largest batch a stream listener receives at once, unless its annotation says otherwise. */
    private int maxBatchSize = 100;

    /** How long in-flight batches and jobs may run on shutdown before they are interrupted and released. */
    private Duration shutdownTimeout = Duration.ofSeconds(30);

    /**
     * Names this instance in stream member names and job worker ids. Defaults to host name and process id; set a
     * stable, unique value per instance (e.g. the pod name) so a restarted instance resumes its members' batches.
     */
    private String instanceId;

    /** Delay before a failed stream message is delivered again, by retry count. */
    private final Retry retry = new Retry();

    public boolean isAutoStartup() {
        return autoStartup;
    }

    public void setAutoStartup(boolean autoStartup) {
        this.autoStartup = autoStartup;
    }

    public boolean isListen() {
        return listen;
    }

    public void setListen(boolean listen) {
        this.listen = listen;
    }

    public Duration getMinPollInterval() {
        return minPollInterval;
    }

    public void setMinPollInterval(Duration minPollInterval) {
        this.minPollInterval = minPollInterval;
    }

    public Duration getMaxPollInterval() {
        return maxPollInterval;
    }

    public void setMaxPollInterval(Duration maxPollInterval) {
        this.maxPollInterval = maxPollInterval;
    }

    public Duration getListenPollInterval() {
        return listenPollInterval;
    }

    public void setListenPollInterval(Duration listenPollInterval) {
        this.listenPollInterval = listenPollInterval;
    }

    public int getMaxBatchSize() {
        return maxBatchSize;
    }

    public void setMaxBatchSize(int maxBatchSize) {
        this.maxBatchSize = maxBatchSize;
    }

    public Duration getShutdownTimeout() {
        return shutdownTimeout;
    }

    public void setShutdownTimeout(Duration shutdownTimeout) {
        this.shutdownTimeout = shutdownTimeout;
    }

    public String getInstanceId() {
        return instanceId;
    }

    public void setInstanceId(String instanceId) {
        this.instanceId = instanceId;
    }

    public Retry getRetry() {
        return retry;
    }

    public static class Retry {

        /** Delay before the first redelivery of a failed message. */
        private Duration initialInterval = Duration.ofSeconds(1);

        /** Factor applied to the delay for each further retry. */
        private double multiplier = 2.0;

        /** Longest delay between redeliveries. */
        private Duration maxInterval = Duration.ofMinutes(5);

        public Duration getInitialInterval() {
            return initialInterval;
        }

        public void setInitialInterval(Duration initialInterval) {
            this.initialInterval = initialInterval;
        }

        public double getMultiplier() {
            return multiplier;
        }

        public void setMultiplier(double multiplier) {
            this.multiplier = multiplier;
        }

        public Duration getMaxInterval() {
            return maxInterval;
        }

        public void setMaxInterval(Duration maxInterval) {
            this.maxInterval = maxInterval;
        }
    }
}
