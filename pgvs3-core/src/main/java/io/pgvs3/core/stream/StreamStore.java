package io.pgvs3.core.stream;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import io.pgvs3.core.catalog.QueueCatalog;
import io.pgvs3.core.notify.NotificationHub;
import tools.jackson.databind.JsonNode;

import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The streams view of the queues in one place, for applications and tests that want a single entry point: each
 * method is that of the class that owns the concern, where it is documented.
 * <ul>
 * <li>{@link StreamAppends}: append;</li>
 * <li>{@link StreamDelivery}: receive, ack, nack, ack-and-receive (the hot path);</li>
 * <li>{@link StreamConsumers}: subscribe, unsubscribe, consumers and outstanding batches;</li>
 * <li>{@link StreamDeadLetters}: list, replay and purge dead letters;</li>
 * <li>{@link StreamQueueSettings}: info and configuration;</li>
 * <li>{@link StreamLogMaintenance}: rotation, ticks, retries, compaction;</li>
 * <li>{@link StreamIdleChecks}: the checks long-polls share.</li>
 * </ul>
 * Every operation is one statement through a {@link JdbcTemplate}, so it joins the caller's Spring transaction.
 */
public class StreamStore {

    /** Most messages one append may carry. */
    public static final int MAX_BATCH = StreamAppends.MAX_BATCH;

    /** The longest dedupe key, in characters. */
    public static final int MAX_DEDUPE_KEY = StreamAppends.MAX_DEDUPE_KEY;

    /** The highest {@code max} a receive accepts: the most messages one batch holds. */
    public static final int MAX_RECEIVE = StreamDelivery.MAX_RECEIVE;

    private final StreamAppends appends;
    private final StreamDelivery delivery;
    private final StreamConsumers consumers;
    private final StreamDeadLetters deadLetters;
    private final StreamQueueSettings settings;
    private final StreamLogMaintenance maintenance;
    private final StreamIdleChecks idleChecks;

    public StreamStore(JdbcTemplate jdbc, QueueCatalog catalog) {
        this(jdbc, catalog, null);
    }

    /**
     * A store whose appends also wake the listeners registered with {@code localListeners} (see
     * {@link StreamAppends}).
     */
    public StreamStore(JdbcTemplate jdbc, QueueCatalog catalog, NotificationHub localListeners) {
        this(new StreamAppends(jdbc, catalog, localListeners), new StreamDelivery(jdbc, catalog),
                new StreamConsumers(jdbc, catalog),
                new StreamDeadLetters(jdbc, catalog), new StreamQueueSettings(jdbc, catalog),
                new StreamLogMaintenance(jdbc, catalog), new StreamIdleChecks(jdbc, catalog));
    }

    public StreamStore(StreamAppends appends, StreamDelivery delivery, StreamConsumers consumers,
            StreamDeadLetters deadLetters, StreamQueueSettings settings, StreamLogMaintenance maintenance,
            StreamIdleChecks idleChecks) {
        this.appends = appends;
        this.delivery = delivery;
        this.consumers = consumers;
        this.deadLetters = deadLetters;
        this.settings = settings;
        this.maintenance = maintenance;
        this.idleChecks = idleChecks;
    }

    /** See {@link StreamAppends#append(String, NewStreamMessage)}. */
    public AppendResult append(String queue, NewStreamMessage message) {
        return appends.append(queue, message);
    }

    /** See {@link StreamAppends#append(String, List)}. */
    public List<AppendResult> append(String queue, List<NewStreamMessage> messages) {
        return appends.append(queue, messages);
    }

    /** See {@link StreamConsumers#subscribe}. */
    public Subscription subscribe(String queue, String consumer, Long fromTick) {
        return consumers.subscribe(queue, consumer, fromTick);
    }

    /** See {@link StreamConsumers#subscribeFromNow}. */
    public Subscription subscribeFromNow(String queue, String consumer) {
        return consumers.subscribeFromNow(queue, consumer);
    }

    /** See {@link StreamConsumers#unsubscribe}. */
    public boolean unsubscribe(String queue, String consumer) {
        return consumers.unsubscribe(queue, consumer);
    }

    /** See {@link StreamDelivery#receive}. */
    public StreamBatch receive(String queue, String consumer, String member, int max) {
        return delivery.receive(queue, consumer, member, max);
    }

    /** See {@link StreamDelivery#receiveMarked}. */
    public MarkedBatch receiveMarked(String queue, String consumer, String member, int max) {
        return delivery.receiveMarked(queue, consumer, member, max);
    }

    /** See {@link StreamDelivery#warmReceive}. */
    public void warmReceive(String queue, String consumer, String member) {
        delivery.warmReceive(queue, consumer, member);
    }

    /** See {@link StreamIdleChecks#appendedSince}. */
    public Set<AppendMark> appendedSince(Collection<AppendMark> marks) {
        return idleChecks.appendedSince(marks);
    }

    /** See {@link StreamIdleChecks#idle}. */
    public Map<ReceiveTarget, MarkedBatch> idle(Collection<ReceiveTarget> targets) {
        return idleChecks.idle(targets);
    }

    /** See {@link StreamDelivery#ackAndReceive}. */
    public StreamBatch ackAndReceive(String queue, long batchId, String consumer, String member, int max) {
        return delivery.ackAndReceive(queue, batchId, consumer, member, max);
    }

    /** See {@link StreamDelivery#ack}. */
    public boolean ack(String queue, long batchId) {
        return delivery.ack(queue, batchId);
    }

    /** See {@link StreamDelivery#nack(String, long, String, Duration, String)}. */
    public NackResult nack(String queue, long batchId, String messageId, Duration retryAfter, String reason) {
        return delivery.nack(queue, batchId, messageId, retryAfter, reason);
    }

    /** See {@link StreamDelivery#nack(String, long, String, Duration, String, boolean)}. */
    public NackResult nack(String queue, long batchId, String messageId, Duration retryAfter, String reason,
            boolean deadLetter) {
        return delivery.nack(queue, batchId, messageId, retryAfter, reason, deadLetter);
    }

    /** See {@link StreamConsumers#consumers}. */
    public JsonNode consumers(String queue) {
        return consumers.consumers(queue);
    }

    /** See {@link StreamConsumers#batch}. */
    public Optional<JsonNode> batch(String queue, long batchId) {
        return consumers.batch(queue, batchId);
    }

    /** See {@link StreamQueueSettings#info}. */
    public JsonNode info(String queue) {
        return settings.info(queue);
    }

    /** See {@link StreamQueueSettings#config}. */
    public StreamConfig config(String queue) {
        return settings.config(queue);
    }

    /** See {@link StreamQueueSettings#updateConfig(String, Integer, Duration)}. */
    public StreamConfig updateConfig(String queue, Integer maxRetries, Duration retention) {
        return settings.updateConfig(queue, maxRetries, retention);
    }

    /** See {@link StreamQueueSettings#updateConfig(String, Integer, Duration, Duration)}. */
    public StreamConfig updateConfig(String queue, Integer maxRetries, Duration retention, Duration dedupeWindow) {
        return settings.updateConfig(queue, maxRetries, retention, dedupeWindow);
    }

    /** See {@link StreamDeadLetters#deadLetters}. */
    public JsonNode deadLetters(String queue, int limit, int offset) {
        return deadLetters.deadLetters(queue, limit, offset);
    }

    /** See {@link StreamDeadLetters#replayDeadLetter}. */
    public boolean replayDeadLetter(String queue, long deadLetterId) {
        return deadLetters.replayDeadLetter(queue, deadLetterId);
    }

    /** See {@link StreamDeadLetters#replayDeadLetters}. */
    public int replayDeadLetters(String queue) {
        return deadLetters.replayDeadLetters(queue);
    }

    /** See {@link StreamDeadLetters#purgeDeadLetters}. */
    public int purgeDeadLetters(String queue, Duration olderThan) {
        return deadLetters.purgeDeadLetters(queue, olderThan);
    }

    /** See {@link StreamLogMaintenance#rotate}. */
    public RotationOutcome rotate(String queue, boolean force) {
        return maintenance.rotate(queue, force);
    }

    /** See {@link StreamLogMaintenance#tick}. */
    public int tick(String queue, int minEvents) {
        return maintenance.tick(queue, minEvents);
    }

    /** See {@link StreamLogMaintenance#moveDueRetries}. */
    public int moveDueRetries(String queue, int limit) {
        return maintenance.moveDueRetries(queue, limit);
    }

    /** See {@link StreamLogMaintenance#cleanupTicks}. */
    public int cleanupTicks(String queue) {
        return maintenance.cleanupTicks(queue);
    }

    /** See {@link StreamLogMaintenance#compact}. */
    public int compact(String queue, boolean force) {
        return maintenance.compact(queue, force);
    }
}
