package io.pgvs3.spring.metrics;

import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import javax.sql.DataSource;

import io.pgvs3.core.catalog.QueueCatalog;
import io.pgvs3.core.catalog.QueueName;
import io.pgvs3.core.catalog.QueueStatsQuery;
import io.pgvs3.core.cluster.ClusterRouter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.context.SmartLifecycle;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Reads consumer lag and job depth per state of every queue ({@link QueueStatsQuery}) on a fixed interval, on a
 * thread of its own, so that gauges, the health indicator and the dashboard's history answer from memory and a
 * metrics scrape never runs a query.
 */
public class QueueStatsSampler implements SmartLifecycle {

    private static final Logger log = LoggerFactory.getLogger(QueueStatsSampler.class);

    private final List<Source> sources;
    private final JsonMapper mapper;
    private final Duration interval;
    private final List<Consumer<Snapshot>> listeners = new CopyOnWriteArrayList<>();
    private volatile Snapshot snapshot = new Snapshot(null, Map.of(), Map.of());
    private ScheduledExecutorService executor;

    public QueueStatsSampler(JdbcTemplate jdbc, QueueCatalog catalog, JsonMapper mapper, Duration interval) {
        this(List.of(new Source(new QueueStatsQuery(jdbc), catalog)), mapper, interval);
    }

    /**
     * Samples the queues of several databases (one per cluster) into one snapshot; a queue name is held by one
     * cluster only.
     */
    public QueueStatsSampler(List<Source> sources, JsonMapper mapper, Duration interval) {
        this.sources = List.copyOf(sources);
        this.mapper = mapper;
        this.interval = interval;
    }

    /**
     * The sampler of every cluster's queues, or of the application's database alone when there is no router.
     */
    public static QueueStatsSampler of(ClusterRouter router, DataSource dataSource, QueueCatalog catalog,
            JsonMapper mapper, Duration interval) {
        List<Source> sources = router == null
                ? List.of(new Source(new QueueStatsQuery(new JdbcTemplate(dataSource)), catalog))
                : router.clusters().stream()
                        .map(cluster -> new Source(new QueueStatsQuery(new JdbcTemplate(cluster.dataSource())),
                                cluster.catalog()))
                        .toList();
        return new QueueStatsSampler(sources, mapper, interval);
    }

    /** The latest sample; empty (sampledAt null) before the first one. */
    public Snapshot snapshot() {
        return snapshot;
    }

    /** Called with every new sample, on the sampling thread. */
    public void onSample(Consumer<Snapshot> listener) {
        listeners.add(listener);
    }

    /** Takes a sample now. */
    public Snapshot sample() {
        Map<String, Map<String, ConsumerLag>> lags = new LinkedHashMap<>();
        Map<String, Map<String, Long>> depths = new LinkedHashMap<>();
        for (Source source : sources) {
            for (String queue : source.catalog().names()) {
                QueueName name = QueueName.of(queue);
                try {
                    lags.put(queue, consumers(source.stats().consumersJson(name)));
                    depths.put(queue, source.stats().jobDepth(name).byState());
                }
                catch (DataAccessException ex) {
                    if (!QueueCatalog.isMissingNamespace(ex)) {
                        throw ex;
                    }
                }
            }
        }
        Snapshot taken = new Snapshot(Instant.now(), Map.copyOf(lags), Map.copyOf(depths));
        snapshot = taken;
        listeners.forEach(listener -> listener.accept(taken));
        return taken;
    }

    private Map<String, ConsumerLag> consumers(String json) {
        Map<String, ConsumerLag> lags = new LinkedHashMap<>();
        if (json == null) {
            return lags;
        }
        for (JsonNode consumer : mapper.readTree(json)) {
            long events = consumer.path("lag").asLong();
            long seconds = events == 0 ? 0 : consumer.path("lag_seconds").asLong();
            lags.put(consumer.path("name").asString(), new ConsumerLag(events, seconds));
        }
        return lags;
    }

    @Override
    public synchronized void start() {
        if (executor != null) {
            return;
        }
        executor = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, "pgvs3-stats");
            thread.setDaemon(true);
            return thread;
        });
        executor.scheduleWithFixedDelay(() -> {
            try {
                sample();
            }
            catch (RuntimeException ex) {
                log.debug("pgvs3 queue statistics could not be sampled: {}", ex.toString());
            }
        }, 0, interval.toMillis(), TimeUnit.MILLISECONDS);
    }

    @Override
    public synchronized void stop() {
        if (executor != null) {
            executor.shutdownNow();
            executor = null;
        }
    }

    @Override
    public synchronized boolean isRunning() {
        return executor != null;
    }

    /**
     * One database to sample: its statistics queries and its catalog of queues.
     *
     * @param stats   the statistics queries on that database
     * @param catalog the queues it holds
     */
    public record Source(QueueStatsQuery stats, QueueCatalog catalog) {
    }

    /**
     * One consumer's distance behind the head of its stream.
     *
     * @param events  messages appended after the consumer's cursor
     * @param seconds age of the consumer's cursor while it is behind; 0 when caught up
     */
    public record ConsumerLag(long events, long seconds) {
    }

    /**
     * One sample.
     *
     * @param sampledAt when it was taken (null before the first)
     * @param lag       queue → consumer → lag
     * @param jobDepth  queue → job state → number of jobs
     */
    public record Snapshot(Instant sampledAt, Map<String, Map<String, ConsumerLag>> lag,
            Map<String, Map<String, Long>> jobDepth) {
    }
}
