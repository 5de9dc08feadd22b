package io.pgvs3.spring.autoconfigure;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Configuration of pgvs3 under {@code pgvs3.*}.
 */
@ConfigurationProperties("pgvs3")
public class Pgvs3Properties {

    private final Http http = new Http();

    private final Maintenance maintenance = new Maintenance();

    private final Jobs jobs = new Jobs();

    private final Streams streams = new Streams();

    public Http getHttp() {
        return http;
    }

    public Maintenance getMaintenance() {
        return maintenance;
    }

    public Jobs getJobs() {
        return jobs;
    }

    public Streams getStreams() {
        return streams;
    }

    public static class Http {

        /** Whether to serve the OJS and stream HTTP routes under /ojs. */
        private boolean enabled = false;

        /** Whether to answer every mutation with 403 forbidden, allowing only reads. */
        private boolean readOnly = false;

        /** Whether POST /ojs/v1/admin/reset empties everything. For conformance runs only; never in production. */
        private boolean adminResetEnabled = false;

        /** Largest request body accepted, in bytes; larger bodies are refused with 413. */
        private long maxRequestBytes = 8 * 1024 * 1024;

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        public boolean isReadOnly() {
            return readOnly;
        }

        public void setReadOnly(boolean readOnly) {
            this.readOnly = readOnly;
        }

        public boolean isAdminResetEnabled() {
            return adminResetEnabled;
        }

        public void setAdminResetEnabled(boolean adminResetEnabled) {
            this.adminResetEnabled = adminResetEnabled;
        }

        public long getMaxRequestBytes() {
            return maxRequestBytes;
        }

        public void setMaxRequestBytes(long maxRequestBytes) {
            this.maxRequestBytes = maxRequestBytes;
        }
    }

    public static class Maintenance {

        /** Whether this instance runs the maintenance pass; only one instance runs it at a time. */
        private boolean enabled = true;

        /** Delay between the end of one maintenance pass and the start of the next. */
        private Duration interval = Duration.ofMillis(250);

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        public Duration getInterval() {
            return interval;
        }

        public void setInterval(Duration interval) {
            this.interval = interval;
        }
    }

    public static class Jobs {

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

        /** Most ack batches in flight at once. */
        private int ackFlushers = 4;

        /** Most jobs per queue and kind of work one maintenance pass handles. */
        private int maintenanceBatch = 1000;

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

    public static class Streams {

        /** Longest wait_ms a receive may long-poll for. */
        private Duration maxWait = Duration.ofSeconds(5);

        public Duration getMaxWait() {
            return maxWait;
        }

        public void setMaxWait(Duration maxWait) {
            this.maxWait = maxWait;
        }
    }
}
