package io.pgvs3.core.job;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

import io.pgvs3.core.catalog.QueueCatalog;
import io.pgvs3.core.catalog.QueueName;
import io.pgvs3.core.error.Pgvs3Exception;
import io.pgvs3.core.notify.NotificationHub;
import io.pgvs3.core.notify.QueueNotifier;

import org.springframework.dao.DataIntegrityViolationException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Job lifecycle events as a stream: a job queue that opted in has every event of its jobs ({@code job.enqueued},
 * {@code job.started}, {@code job.completed}, ...) appended to a stream, in the transaction of the transition that
 * recorded it (see {@code V1__catalog.sql}). Each message has the event id as its id, the event type as its
 * type and the event data as its payload, so a stream consumer sees every committed transition exactly as the event
 * log records it, with the streams' fan-out, cooperative members, retries and dead letters.
 * <p>
 * The appends do not notify inside the job transactions; {@link #transitioned()} wakes the listeners of the target
 * streams once the transition committed. It only knows the opt-ins it has loaded: those made through this instance at
 * once, those made elsewhere within {@link #REFRESH_NANOS}. Listeners also poll, so a missed wake-up only delays.
 */
public final class JobEventStreams {

    /** Where a queue's events go unless the opt-in names a stream: {@code <queue>.events}. */
    public static final String DEFAULT_SUFFIX = ".events";

    /** How often the opt-ins are reloaded from the catalog for wake-ups (opt-ins made by other instances). */
    static final long REFRESH_NANOS = 10_000_000_000L;

    static final String SET_STREAM_SQL = "SELECT s3p.set_job_event_stream(?, ?)";

    static final String UNSET_STREAM_SQL = "SELECT s3p.set_job_event_stream(?, NULL)";

    static final String STREAM_SQL = "SELECT stream FROM s3p.job_event_streams WHERE queue = ?";

    static final String ALL_SQL = "SELECT queue, stream FROM s3p.job_event_streams ORDER BY queue";

    static final String TRIGGERS_STALE_SQL = "SELECT s3p.job_event_triggers_stale()";

    static final String SYNC_TRIGGERS_SQL = "DO $$ BEGIN LOCK TABLE s3p.job_events IN SHARE ROW EXCLUSIVE MODE;"
            + " PERFORM s3p.sync_job_event_triggers(); END $$";

    static final String TARGETS_SQL = "SELECT DISTINCT stream FROM s3p.job_event_streams";

    private final JdbcTemplate jdbc;
    private final QueueCatalog catalog;
    private final QueueNotifier notifier;
    private volatile Set<String> channels = Set.of();
    private volatile long refreshAt = System.nanoTime();
    private volatile long syncAt = System.nanoTime();

    JobEventStreams(JdbcTemplate jdbc, QueueCatalog catalog) {
        this.jdbc = jdbc;
        this.catalog = catalog;
        this.notifier = new QueueNotifier(jdbc, "stream");
    }

    /**
     * Sends the job events of {@code queue} to {@code stream} from now on (to {@code <queue>.events} when it is
     * null), creating the stream's namespace if needed; answers the stream. 404 for a queue that does not exist, 400
     * for an invalid stream name (or one that {@code <queue>.events} would make too long).
     */
    public String enable(String queue, String stream) {
        QueueName source = existing(queue);
        String target = stream != null ? stream : source.value() + DEFAULT_SUFFIX;
        if (!QueueName.isValid(target)) {
            throw Pgvs3Exception.invalidRequest(stream != null ? "stream name '" + target + "' is invalid: use"
                    + " lowercase letters, digits, '.' and '-', at most " + QueueName.MAX_BYTES + " bytes"
                    : "queue name '" + source.value() + "' is too long for the default stream '" + target
                            + "'; name a stream", "stream");
        }
        catalog.ensure(QueueName.of(target));
        try {
            jdbc.queryForList(SET_STREAM_SQL, String.class, source.value(), target);
        }
        catch (DataIntegrityViolationException ex) {
            // a foreign key: one of the queues was dropped meanwhile (by another instance)
            catalog.forget(source);
            catalog.forget(QueueName.of(target));
            throw Pgvs3Exception.notFound("queue '" + queue + "' or '" + target + "' no longer exists");
        }
        reload();
        return target;
    }

    /** Stops sending the job events of {@code queue} to a stream; answers the stream it sent them to, if any. */
    public Optional<String> disable(String queue) {
        QueueName source = existing(queue);
        String before = jdbc.queryForObject(UNSET_STREAM_SQL, String.class, source.value());
        reload();
        return Optional.ofNullable(before);
    }

    /** The stream that receives the job events of {@code queue}, if it opted in; 404 for an unknown queue. */
    public Optional<String> stream(String queue) {
        QueueName source = existing(queue);
        return jdbc.queryForList(STREAM_SQL, String.class,
                source.value()).stream().findFirst();
    }

    /** Every opt-in: job queue to stream. */
    public Map<String, String> all() {
        return jdbc.query(ALL_SQL, rs -> {
            Map<String, String> all = new LinkedHashMap<>();
            while (rs.next()) {
                all.put(rs.getString(1), rs.getString(2));
            }
            return all;
        });
    }

    /**
     * Every {@link #REFRESH_NANOS}: brings the triggers in line with the opt-ins (see {@link #syncTriggers()}) and
     * reloads the opt-ins for wake-ups.
     */
    void maintain() {
        if (System.nanoTime() - syncAt < 0) {
            return;
        }
        syncAt = System.nanoTime() + REFRESH_NANOS;
        syncTriggers();
        reload();
    }

    /**
     * Brings the triggers on {@code s3p.job_events} in line with the opt-ins when they differ: dropping a queue that
     * sent events, or a reset of the catalog, removes opt-ins without touching the triggers.
     */
    void syncTriggers() {
        if (Boolean.TRUE.equals(jdbc.queryForObject(TRIGGERS_STALE_SQL, Boolean.class))) {
            jdbc.execute(SYNC_TRIGGERS_SQL);
        }
    }

    /**
     * Called after job transitions: wakes the listeners of every stream that receives job events once the caller's
     * transaction committed (at once outside one). Costs a field read while no queue opted in.
     */
    void transitioned() {
        if (System.nanoTime() - refreshAt > 0) {
            reload();
        }
        Set<String> targets = channels;
        if (targets.isEmpty()) {
            return;
        }
        if (TransactionSynchronizationManager.isSynchronizationActive()) {
            TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
                @Override
                public void afterCommit() {
                    targets.forEach(notifier::signal);
                }
            });
        }
        else {
            targets.forEach(notifier::signal);
        }
    }

    private void reload() {
        refreshAt = System.nanoTime() + REFRESH_NANOS;
        List<String> streams = jdbc.queryForList(TARGETS_SQL, String.class);
        channels = streams.stream().map(name -> NotificationHub.channelFor(QueueName.of(name)))
                .collect(Collectors.toUnmodifiableSet());
    }

    private QueueName existing(String queue) {
        QueueName name = QueueName.of(queue);
        if (!catalog.exists(name)) {
            throw Pgvs3Exception.notFound("queue '" + queue + "' does not exist");
        }
        return name;
    }
}
