package io.pgvs3.spring.health;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import javax.sql.DataSource;

import io.pgvs3.spring.autoconfigure.Pgvs3HealthProperties;
import io.pgvs3.spring.maintenance.MaintenanceScheduler;
import io.pgvs3.spring.metrics.QueueStatsSampler;

import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

/**
 * pgvs3's health: DOWN when the database does not answer within the timeout (the check runs on its own thread, so
 * a hung pool never hangs the health endpoint) or when maintenance has not completed a pass for too long on an
 * instance that runs it. Consumers lagging beyond the thresholds and the oldest holder of this database's xmin
 * horizon (a backend or prepared transaction in this database, or a replication slot) are reported as details, with a warning when they would pin
 * vacuum; they do not take the instance out of service.
 */
public class Pgvs3HealthIndicator implements HealthIndicator {

    private static final String SERVER_VERSION_SQL = "SHOW server_version";

    private static final String XMIN_HOLDER_SQL = """
            SELECT kind, holder, xmin_age, started_at, query_start, state, query FROM (
                SELECT 'backend' AS kind, pid::text AS holder, age(backend_xmin) AS xmin_age,
                       xact_start AS started_at, query_start, state, left(query, 200) AS query
                FROM pg_stat_activity
                WHERE backend_xmin IS NOT NULL AND pid <> pg_backend_pid() AND datname = current_database()
                UNION ALL
                SELECT 'replication_slot', slot_name::text, greatest(age(xmin), age(catalog_xmin)),
                       NULL, NULL, CASE WHEN active THEN 'active' ELSE 'inactive' END, NULL
                FROM pg_replication_slots
                WHERE xmin IS NOT NULL OR catalog_xmin IS NOT NULL
                UNION ALL
                SELECT 'prepared_transaction', gid, age(transaction), prepared, NULL, NULL, NULL
                FROM pg_prepared_xacts
                WHERE database = current_database()
            ) holders
            ORDER BY xmin_age DESC NULLS LAST
            LIMIT 1
            """;

    private final DataSource dataSource;
    private final MaintenanceScheduler maintenance;
    private final QueueStatsSampler stats;
    private final Pgvs3HealthProperties settings;
    private final Executor executor;
    private final Instant createdAt = Instant.now();
    private CompletableFuture<DatabaseCheck> pending;

    /**
     * @param maintenance the maintenance schedule of this instance, or null when it runs none
     * @param stats       the queue statistics sampler, or null
     */
    public Pgvs3HealthIndicator(DataSource dataSource, MaintenanceScheduler maintenance, QueueStatsSampler stats,
            Pgvs3HealthProperties settings) {
        this.dataSource = dataSource;
        this.maintenance = maintenance;
        this.stats = stats;
        this.settings = settings;
        this.executor = runnable -> {
            Thread thread = new Thread(runnable, "pgvs3-health");
            thread.setDaemon(true);
            thread.start();
        };
    }

    @Override
    public Health health() {
        Health.Builder builder = Health.up();
        List<String> warnings = new ArrayList<>();
        DatabaseCheck database;
        try {
            database = databaseCheck().get(settings.getTimeout().toMillis(), TimeUnit.MILLISECONDS);
        }
        catch (TimeoutException ex) {
            return Health.down().withDetail("database", "no answer within " + settings.getTimeout()).build();
        }
        catch (ExecutionException ex) {
            return Health.down().withDetail("database", "unavailable").withException(ex.getCause()).build();
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            return Health.unknown().build();
        }
        builder.withDetail("database", Map.of("version", database.version(), "latencyMs", database.latencyMs()));
        if (database.xminHolder() != null) {
            XminHolder holder = database.xminHolder();
            builder.withDetail("xminHorizon", holder.details());
            if (holder.startedAt() != null
                    && Duration.between(holder.startedAt(), Instant.now()).compareTo(settings.getXminHorizonAge()) > 0) {
                warnings.add("the " + holder.kind().replace('_', ' ') + " " + holder.holder()
                        + " has held the xmin horizon since " + holder.startedAt()
                        + "; vacuum cannot remove dead tuples newer than it");
            }
        }
        if (!checkMaintenance(builder)) {
            builder.down();
        }
        checkLag(builder, warnings);
        if (!warnings.isEmpty()) {
            builder.withDetail("warnings", warnings);
        }
        return builder.build();
    }

    private synchronized CompletableFuture<DatabaseCheck> databaseCheck() {
        // A check still waiting on a hung database is reused rather than piling up threads behind it.
        if (pending == null || pending.isDone()) {
            pending = CompletableFuture.supplyAsync(this::queryDatabase, executor);
        }
        return pending;
    }

    private DatabaseCheck queryDatabase() {
        long start = System.nanoTime();
        try (Connection connection = dataSource.getConnection()) {
            String version;
            try (PreparedStatement statement = connection.prepareStatement(SERVER_VERSION_SQL);
                    ResultSet rs = statement.executeQuery()) {
                rs.next();
                version = rs.getString(1);
            }
            long latency = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            XminHolder holder = null;
            try (PreparedStatement statement = connection.prepareStatement(XMIN_HOLDER_SQL)) {
                statement.setQueryTimeout((int) Math.max(1, settings.getTimeout().toSeconds()));
                try (ResultSet rs = statement.executeQuery()) {
                    if (rs.next()) {
                        holder = new XminHolder(rs.getString("kind"), rs.getString("holder"), rs.getLong("xmin_age"),
                                instant(rs.getTimestamp("started_at")), instant(rs.getTimestamp("query_start")),
                                rs.getString("state"), rs.getString("query"));
                    }
                }
            }
            return new DatabaseCheck(version, latency, holder);
        }
        catch (SQLException ex) {
            throw new IllegalStateException(ex.getMessage(), ex);
        }
    }

    private boolean checkMaintenance(Health.Builder builder) {
        if (maintenance == null) {
            builder.withDetail("maintenance", Map.of("enabled", false));
            return true;
        }
        Instant last = maintenance.lastCompletedAt();
        Instant reference = last != null ? last : createdAt;
        Duration age = Duration.between(reference, Instant.now());
        Map<String, Object> details = new LinkedHashMap<>();
        details.put("enabled", true);
        details.put("lastCompletedAt", last == null ? "never" : last.toString());
        boolean fresh = age.compareTo(settings.getMaintenanceStaleAfter()) <= 0;
        if (!fresh) {
            details.put("problem", "no maintenance pass completed for " + age.toSeconds() + "s");
        }
        builder.withDetail("maintenance", details);
        return fresh;
    }

    private void checkLag(Health.Builder builder, List<String> warnings) {
        if (stats == null || stats.snapshot().sampledAt() == null) {
            return;
        }
        Map<String, Object> lagging = new LinkedHashMap<>();
        stats.snapshot().lag().forEach((queue, consumers) -> consumers.forEach((consumer, lag) -> {
            if (lag.events() > settings.getMaxConsumerLag()
                    || lag.seconds() > settings.getMaxConsumerLagAge().toSeconds()) {
                lagging.put(queue + "/" + consumer, Map.of("events", lag.events(), "seconds", lag.seconds()));
            }
        }));
        if (!lagging.isEmpty()) {
            builder.withDetail("laggingConsumers", lagging);
            warnings.add(lagging.size() + " stream consumer(s) lag beyond " + settings.getMaxConsumerLag()
                    + " events or " + settings.getMaxConsumerLagAge());
        }
    }

    private static Instant instant(Timestamp timestamp) {
        return timestamp == null ? null : timestamp.toInstant();
    }

    private record DatabaseCheck(String version, long latencyMs, XminHolder xminHolder) {
    }

    private record XminHolder(String kind, String holder, long xminAge, Instant startedAt, Instant queryStart,
            String state, String query) {

        Map<String, Object> details() {
            Map<String, Object> details = new LinkedHashMap<>();
            details.put("kind", kind);
            details.put(kind.equals("backend") ? "pid" : "name", holder);
            details.put("xminAge", xminAge);
            if (startedAt != null) {
                details.put("since", startedAt.toString());
                details.put("ageSeconds", Duration.between(startedAt, Instant.now()).toSeconds());
            }
            if (queryStart != null) {
                details.put("queryStart", queryStart.toString());
            }
            if (state != null) {
                details.put("state", state);
            }
            if (query != null) {
                details.put("query", query);
            }
            return details;
        }
    }
}
