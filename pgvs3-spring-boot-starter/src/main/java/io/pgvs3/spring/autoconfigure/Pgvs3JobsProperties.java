package io.pgvs3.spring.autoconfigure;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Configuration under {@code pgvs3.jobs.*}.
 */
public class Pgvs3JobsProperties {

    /** Lease given to a fetched job when neither the fetch nor the job names a visibility timeout. */
    private Duration defaultVisibilityTimeout = Duration.ofSeconds(30);

    /** How long completed, cancelled and discarded jobs are kept before maintenance deletes them. */
    private Duration retention = Duration.ofHours(1);

    /** How long dead-lettered jobs are kept. */
    private Duration deadLetterRetention = Duration.ofDays(7);

    /** How long job lifecycle events (GET /ojs/v1/events) are kept. */
    private Duration eventRetention = Duration.ofHours(1);

    /** Most concurrent acks completed in one shared commit; 1 turns grouping off. */
    private int maxAckBatch = 256;

    /** Most ack batches in flight at once; acks that arrive meanwhile wait and share the next commit. */
    private int ackFlushers = 1;

    /** Most jobs per queue and kind of work one maintenance pass handles. */
    private int maintenanceBatch = 1000;

    /**
     * Job queues whose lifecycle events are appended to a stream, by queue name: the stream's queue name, or
     * empty for {@code <queue>.events}. Applied at startup (creating the queues); opting out is done through
     * {@code JobEventLog.eventStreams()} or {@code DELETE /ojs/v1/queues/{queue}/job-events}.
     */
    private Map<String, String> eventStreams = new LinkedHashMap<>();

    public Map<String, String> getEventStreams() {
        return eventStreams;
    }

    public void setEventStreams(Map<String, String> eventStreams) {
        this.eventStreams = eventStreams;
    }

    public Duration getDefaultVisibilityTimeout() {
        return defaultVisibilityTimeout;
    }

    public void setDefaultVisibilityTimeout(Duration defaultVisibilityTimeout) {
        this.defaultVisibilityTimeout = defaultVisibilityTimeout;
    }

    public Duration getRetention() {
        return retention;
    }

    public void setRetention(Duration retention) {
        this.retention = retention;
    }

    public Duration getDeadLetterRetention() {
        return deadLetterRetention;
    }

    public void setDeadLetterRetention(Duration deadLetterRetention) {
        this.deadLetterRetention = deadLetterRetention;
    }

    public Duration getEventRetention() {
        return eventRetention;
    }

    public void setEventRetention(Duration eventRetention) {
        this.eventRetention = eventRetention;
    }

    public int getMaxAckBatch() {
        return maxAckBatch;
    }

    public void setMaxAckBatch(int maxAckBatch) {
        this.maxAckBatch = maxAckBatch;
    }

    public int getAckFlushers() {
        return ackFlushers;
    }

    public void setAckFlushers(int ackFlushers) {
        this.ackFlushers = ackFlushers;
    }

    public int getMaintenanceBatch() {
        return maintenanceBatch;
    }

    public void setMaintenanceBatch(int maintenanceBatch) {
        this.maintenanceBatch = maintenanceBatch;
    }
}
