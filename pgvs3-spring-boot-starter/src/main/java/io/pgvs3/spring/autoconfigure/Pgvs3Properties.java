package io.pgvs3.spring.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

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

    private final Listener listener = new Listener();

    private final Handler handler = new Handler();

    private final Health health = new Health();

    private final Metrics metrics = new Metrics();

    private final Dashboard dashboard = new Dashboard();

    /**
     * Further PostgreSQL databases, by name, each with its own s3p catalog and the queues routed to it; the
     * application's own DataSource is the cluster 'default' and holds every queue no route claims.
     */
    private final Map<String, Cluster> clusters = new LinkedHashMap<>();

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

    public Listener getListener() {
        return listener;
    }

    public Handler getHandler() {
        return handler;
    }

    public Health getHealth() {
        return health;
    }

    public Metrics getMetrics() {
        return metrics;
    }

    public Dashboard getDashboard() {
        return dashboard;
    }

    public Map<String, Cluster> getClusters() {
        return clusters;
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

        /**
         * Longest a client may take to send a request body. The body is read without holding a request thread;
         * one not complete by then is refused with 408.
         */
        private Duration bodyReadTimeout = Duration.ofSeconds(30);

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

        public Duration getBodyReadTimeout() {
            return bodyReadTimeout;
        }

        public void setBodyReadTimeout(Duration bodyReadTimeout) {
            this.bodyReadTimeout = bodyReadTimeout;
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

    public static class Streams {

        /** Longest wait_ms a receive may long-poll for. */
        private Duration maxWait = Duration.ofSeconds(5);

        /** Largest payload of one stream message, in bytes of JSON; larger payloads are refused with 413. */
        private long maxPayloadBytes = 1024 * 1024;

        /**
         * Threads that run the attempts of long-poll receives (wait_ms); 0: half the JDBC pool's connections (2 to
         * 16).
         */
        private int longPollThreads = 0;

        public Duration getMaxWait() {
            return maxWait;
        }

        public void setMaxWait(Duration maxWait) {
            this.maxWait = maxWait;
        }

        public long getMaxPayloadBytes() {
            return maxPayloadBytes;
        }

        public void setMaxPayloadBytes(long maxPayloadBytes) {
            this.maxPayloadBytes = maxPayloadBytes;
        }

        public int getLongPollThreads() {
            return longPollThreads;
        }

        public void setLongPollThreads(int longPollThreads) {
            this.longPollThreads = longPollThreads;
        }
    }

    public static class Listener {

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

    public static class Handler {

        /** Lease taken on each job a @JobHandler container fetches; renewed by heartbeats while it runs. */
        private Duration visibilityTimeout = Duration.ofSeconds(30);

        /**
         * How often the leases of held jobs are checked; one is renewed when it would otherwise run out before the
         * check after next. Must be shorter than the visibility timeout.
         */
        private Duration heartbeatInterval = Duration.ofSeconds(10);

        /** Jobs fetched ahead of free handler threads, so a thread that finishes starts the next job at once. */
        private int prefetch = 0;

        /** Longest wait between fetches of an idle queue (scheduled and retried jobs become due without a notification). */
        private Duration maxPollInterval = Duration.ofSeconds(1);

        public Duration getVisibilityTimeout() {
            return visibilityTimeout;
        }

        public void setVisibilityTimeout(Duration visibilityTimeout) {
            this.visibilityTimeout = visibilityTimeout;
        }

        public Duration getHeartbeatInterval() {
            return heartbeatInterval;
        }

        public void setHeartbeatInterval(Duration heartbeatInterval) {
            this.heartbeatInterval = heartbeatInterval;
        }

        public int getPrefetch() {
            return prefetch;
        }

        public void setPrefetch(int prefetch) {
            this.prefetch = prefetch;
        }

        public Duration getMaxPollInterval() {
            return maxPollInterval;
        }

        public void setMaxPollInterval(Duration maxPollInterval) {
            this.maxPollInterval = maxPollInterval;
        }
    }

    public static class Health {

        /** Longest time the health check waits for the database before it reports DOWN. */
        private Duration timeout = Duration.ofSeconds(2);

        /** Maintenance that has not completed a pass for this long reports DOWN (when this instance runs it). */
        private Duration maintenanceStaleAfter = Duration.ofMinutes(1);

        /** A stream consumer this many events behind is reported in the health details as lagging. */
        private long maxConsumerLag = 10_000;

        /** A stream consumer whose oldest unconsumed event is this old is reported as lagging. */
        private Duration maxConsumerLagAge = Duration.ofMinutes(5);

        /** A transaction, replication slot or prepared transaction holding the xmin horizon this long is reported. */
        private Duration xminHorizonAge = Duration.ofMinutes(5);

        public Duration getTimeout() {
            return timeout;
        }

        public void setTimeout(Duration timeout) {
            this.timeout = timeout;
        }

        public Duration getMaintenanceStaleAfter() {
            return maintenanceStaleAfter;
        }

        public void setMaintenanceStaleAfter(Duration maintenanceStaleAfter) {
            this.maintenanceStaleAfter = maintenanceStaleAfter;
        }

        public long getMaxConsumerLag() {
            return maxConsumerLag;
        }

        public void setMaxConsumerLag(long maxConsumerLag) {
            this.maxConsumerLag = maxConsumerLag;
        }

        public Duration getMaxConsumerLagAge() {
            return maxConsumerLagAge;
        }

        public void setMaxConsumerLagAge(Duration maxConsumerLagAge) {
            this.maxConsumerLagAge = maxConsumerLagAge;
        }

        public Duration getXminHorizonAge() {
            return xminHorizonAge;
        }

        public void setXminHorizonAge(Duration xminHorizonAge) {
            this.xminHorizonAge = xminHorizonAge;
        }
    }

    public static class Metrics {

        /** Whether pgvs3 registers Micrometer meters. */
        private boolean enabled = true;

        /** How often the queue gauges (consumer lag, job depth) are refreshed from the database, never per scrape. */
        private Duration sampleInterval = Duration.ofSeconds(15);

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        public Duration getSampleInterval() {
            return sampleInterval;
        }

        public void setSampleInterval(Duration sampleInterval) {
            this.sampleInterval = sampleInterval;
        }
    }

    public static class Dashboard {

        /**
         * Whether the operator dashboard is served at /dashboard/ (needs pgvs3.http.enabled, since its pages read
         * and act through the HTTP routes under /ojs).
         */
        private boolean enabled = false;

        /** How many samples of each queue's job states and consumer lag the dashboard's history keeps. */
        private int historySize = 240;

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        public int getHistorySize() {
            return historySize;
        }

        public void setHistorySize(int historySize) {
            this.historySize = historySize;
        }
    }

    public static class Cluster {

        /** JDBC URL of the cluster's database. */
        private String url;

        /** Login user of the cluster's database. */
        private String username;

        /** Login password of the cluster's database. */
        private String password;

        /** Largest number of connections of the cluster's pool (Hikari). */
        private int maximumPoolSize = 10;

        /**
         * Queues living on this cluster: queue names, or patterns in which '*' stands for any run of characters
         * (orders-*). Exact names are matched before patterns; patterns in the order configured.
         */
        private List<String> queues = new ArrayList<>();

        public String getUrl() {
            return url;
        }

        public void setUrl(String url) {
            this.url = url;
        }

        public String getUsername() {
            return username;
        }

        public void setUsername(String username) {
            this.username = username;
        }

        public String getPassword() {
            return password;
        }

        public void setPassword(String password) {
            this.password = password;
        }

        public int getMaximumPoolSize() {
            return maximumPoolSize;
        }

        public void setMaximumPoolSize(int maximumPoolSize) {
            this.maximumPoolSize = maximumPoolSize;
        }

        public List<String> getQueues() {
            return queues;
        }

        public void setQueues(List<String> queues) {
            this.queues = queues;
        }
    }
}
