package io.pgvs3.core.job;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.pgvs3.core.catalog.QueueCatalog;
import io.pgvs3.core.catalog.QueueName;
import io.pgvs3.core.notify.LocalWakeUps;
import io.pgvs3.core.notify.NotificationHub;
import io.pgvs3.core.notify.QueueNotifier;
import io.pgvs3.core.sql.QueueStatement;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;
import tools.jackson.databind.util.RawValue;

import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The enqueue of {@link JobStore}: jobs without unique keys as rows ({@link EnqueueRows}), unique jobs as JSON specs
 * through their queue's {@code enqueue} function, which takes the unique locks and may answer existing jobs.
 */
final class JobEnqueuer {

    /** A queue's enqueue of JSON specs, on its schema. */
    static final QueueStatement ENQUEUE_SPECS_SQL = QueueStatement.of(
            "SELECT e.ord, e.job::text, e.created FROM {enqueue}(?::jsonb, ?) e");

    private final JdbcTemplate jdbc;
    private final QueueCatalog catalog;
    private final TransactionTemplate transactions;
    private final QueueNotifier notifier;
    private final JobEventLog events;
    private final LocalWakeUps localWakeUps;
    private final JsonMapper mapper = JsonMapper.builder().build();
    private final RetryEncodings retries = new RetryEncodings(mapper);

    /** @param localListeners this process's LISTEN hub on the same database, woken directly; {@code null}: none */
    JobEnqueuer(JdbcTemplate jdbc, QueueCatalog catalog, TransactionTemplate transactions, JobEventLog events,
            NotificationHub localListeners) {
        this.jdbc = jdbc;
        this.catalog = catalog;
        this.transactions = transactions;
        this.notifier = new QueueNotifier(jdbc, "jobs");
        this.events = events;
        this.localWakeUps = new LocalWakeUps(localListeners);
    }

    List<EnqueueOutcome> enqueueAll(List<NewJob> jobs) {
        if (jobs.isEmpty()) {
            return List.of();
        }
        Set<String> ids = new HashSet<>();
        List<String> jobIds = new ArrayList<>(jobs.size());
        for (NewJob job : jobs) {
            String id = job.id() != null ? job.id() : JobIds.generate(job.queue()).toString();
            if (!ids.add(id)) {
                throw JobErrors.duplicate(id);
            }
            jobIds.add(id);
        }
        if (jobs.stream().anyMatch(job -> job.unique() != null)) {
            // unique jobs take locks and may answer existing jobs: the JSON spec path of enqueue(jsonb) does that; it
            // skips an id that exists and the skip is found afterwards, so it always runs in a transaction that the
            // duplicate then rolls back
            Map<QueueName, ArrayNode> specs = new LinkedHashMap<>();
            for (int i = 0; i < jobs.size(); i++) {
                NewJob job = jobs.get(i);
                specs.computeIfAbsent(job.queue(), q -> mapper.createArrayNode()).add(spec(job, jobIds.get(i), i + 1));
            }
            return enqueueGrouped(jobs.size(), specs, this::insert);
        }
        Map<QueueName, EnqueueRows> rows = new LinkedHashMap<>();
        for (int i = 0; i < jobs.size(); i++) {
            NewJob job = jobs.get(i);
            rows.computeIfAbsent(job.queue(), q -> new EnqueueRows(mapper, retries, q)).add(i + 1, job, jobIds.get(i));
        }
        if (rows.size() > 1 || TransactionSynchronizationManager.isActualTransactionActive()) {
            return enqueueGrouped(jobs.size(), rows, (queue, group, notification) -> insertRows(group, notification).byOrd());
        }
        // one statement in a transaction of its own: it notifies the queue itself unless another enqueue is doing so,
        // else listeners are woken once the jobs committed, outside the writing transaction (see QueueNotifier)
        EnqueueRows group = rows.values().iterator().next();
        EnqueueRows.Inserted inserted = catalog.withQueue(group.queue(),
                () -> insertRows(group, EnqueueNotification.UNLESS_BUSY));
        if (inserted.outcomes().anyAvailable()) {
            String channel = NotificationHub.channelFor(group.queue());
            localWakeUps.now(channel);
            if (!inserted.notified()) {
                notifier.signal(channel);
            }
        }
        events.transitioned();
        return inserted.outcomes();
    }

    /** Inserts one group of jobs into one queue; answers the outcomes by the jobs' positions (1-based). */
    private interface GroupInsert<G> {

        Map<Integer, EnqueueOutcome> insert(QueueName queue, G group, EnqueueNotification notification);
    }

    /** Inserts groups of jobs in one transaction, the caller's if there is one. */
    private <G> List<EnqueueOutcome> enqueueGrouped(int size, Map<QueueName, G> groups, GroupInsert<G> inserter) {
        // inside a caller's transaction the enqueue notifies at its commit; otherwise listeners are woken once the
        // jobs committed, outside the writing transaction (see QueueNotifier)
        boolean callersTransaction = TransactionSynchronizationManager.isActualTransactionActive();
        EnqueueNotification notification = callersTransaction ? EnqueueNotification.ALWAYS : EnqueueNotification.NEVER;
        List<EnqueueOutcome> outcomes = transactions.execute(status -> {
            Map<Integer, EnqueueOutcome> inserted = new HashMap<>();
            groups.forEach((queue, group) -> {
                catalog.ensure(queue);
                inserted.putAll(inserter.insert(queue, group, notification));
            });
            return ordered(size, inserted);
        });
        List<String> available = outcomes.stream()
                .filter(outcome -> outcome.created() && outcome.job().state() == JobState.AVAILABLE)
                .map(outcome -> NotificationHub.channelFor(QueueName.of(outcome.job().queue()))).distinct().toList();
        if (!callersTransaction) {
            available.forEach(channel -> {
                localWakeUps.now(channel);
                notifier.signal(channel);
            });
        }
        else {
            localWakeUps.afterCommit(available);
        }
        events.transitioned();
        return outcomes;
    }

    private EnqueueRows.Inserted insertRows(EnqueueRows rows, EnqueueNotification notification) {
        try {
            return rows.insert(jdbc, notification);
        }
        catch (DataAccessException ex) {
            throw JobErrors.ofInsert(ex);
        }
    }

    private Map<Integer, EnqueueOutcome> insert(QueueName queue, ArrayNode spec, EnqueueNotification notification) {
        boolean notify = notification == EnqueueNotification.ALWAYS;
        Map<Integer, EnqueueOutcome> inserted = new HashMap<>();
        try {
            jdbc.query(ENQUEUE_SPECS_SQL.in(queue.schema()), rs -> {
                inserted.put(rs.getInt(1), new EnqueueOutcome(Job.fromEnvelopeText(rs.getString(2)), rs.getBoolean(3)));
            }, spec.toString(), notify);
        }
        catch (DataAccessException ex) {
            throw JobErrors.ofUniqueEnqueue(ex);
        }
        for (JsonNode job : spec) {
            if (!inserted.containsKey(job.get("ord").asInt())) {
                throw JobErrors.duplicate(job.get("id").asString());
            }
        }
        return inserted;
    }

    private static List<EnqueueOutcome> ordered(int size, Map<Integer, EnqueueOutcome> byOrd) {
        List<EnqueueOutcome> result = new ArrayList<>(size);
        for (int i = 1; i <= size; i++) {
            result.add(byOrd.get(i));
        }
        return result;
    }

    /**
     * The normalised JSON spec a queue's {@code enqueue} function takes. Args, meta, options and extra are checked as
     * the rows path checks them and sent as the client wrote them, as the rows path sends them, so that both store the
     * same {@code jsonb} ({@code 1e2} as {@code 100}, {@code 1.50} as {@code 1.50}), not what Jackson would write back.
     */
    ObjectNode spec(NewJob job, String id, int ord) {
        NewJob.Parsed parsed = job.parsed();
        boolean meta;
        boolean options;
        boolean extra;
        if (parsed != null) {
            JobJsonFields.checkNumbers(parsed.args(), "args");
            meta = JobJsonFields.checkNumbers(parsed.meta(), "meta");
            options = JobJsonFields.checkNumbers(parsed.options(), "options");
            extra = JobJsonFields.checkNumbers(parsed.extra(), "extra");
        }
        else {
            JobJsonFields.checkArgs(job.argsJson(), mapper);
            meta = JobJsonFields.checkOptionalObject(job.metaJson(), "meta", false, mapper);
            options = JobJsonFields.checkOptionalObject(job.optionsJson(), "options", true, mapper);
            extra = JobJsonFields.checkOptionalObject(job.extraJson(), "extra", true, mapper);
        }
        ObjectNode spec = mapper.createObjectNode();
        spec.put("ord", ord);
        spec.put("id", id);
        spec.put("type", job.type());
        spec.putRawValue("args", new RawValue(job.argsJson()));
        putRawIfPresent(spec, "meta", meta, job.metaJson());
        putRawIfPresent(spec, "options", options, job.optionsJson());
        putRawIfPresent(spec, "extra", extra, job.extraJson());
        spec.put("priority", job.priority());
        spec.put("max_attempts", job.retry().maxAttempts());
        spec.putRawValue("retry", new RawValue(retries.of(job.retry()).json()));
        if (job.timeout() != null) {
            spec.put("timeout_ms", job.timeout().toMillis());
        }
        if (job.visibilityTimeout() != null) {
            spec.put("visibility_timeout_ms", job.visibilityTimeout().toMillis());
        }
        if (job.scheduledAt() != null) {
            spec.put("scheduled_at", job.scheduledAt().toString());
        }
        if (job.expiresAt() != null) {
            spec.put("expires_at", job.expiresAt().toString());
        }
        if (job.unique() != null) {
            UniqueOptions unique = job.unique();
            if (unique.key() != null) {
                spec.put("unique_key", unique.key());
            }
            else {
                // the fingerprint reads args and meta from their text with the default mapper, as it always has, so
                // the keys of jobs already stored still match, whatever mapper read a request's trees
                spec.set("unique_parts", UniqueFingerprint.parts(unique, job, mapper.readTree(job.argsJson()),
                        meta ? mapper.readTree(job.metaJson()) : null));
                if (!unique.keys().contains("queue")) {
                    spec.put("unique_global", true);
                }
            }
            ArrayNode states = spec.putArray("unique_states");
            unique.states().forEach(states::add);
            if (unique.period() != null) {
                spec.put("unique_period_ms", unique.period().toMillis());
            }
            spec.put("on_conflict", unique.onConflict());
        }
        return spec;
    }

    private static void putRawIfPresent(ObjectNode spec, String field, boolean present, String json) {
        if (present) {
            spec.putRawValue(field, new RawValue(json));
        }
    }
}
