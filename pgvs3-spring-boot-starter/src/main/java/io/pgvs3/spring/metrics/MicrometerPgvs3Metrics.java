package io.pgvs3.spring.metrics;

import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.pgvs3.core.maintenance.MaintenanceReport;

/**
 * Micrometer meters under {@code pgvs3.*}. Counters and timers are updated by the threads doing the work; gauges
 * read the latest {@link QueueStatsSampler} sample, so a scrape never touches the database.
 * <ul>
 * <li>{@code pgvs3.stream.appended}, {@code .received}, {@code .acked} (counters, tags queue[, consumer])</li>
 * <li>{@code pgvs3.stream.nacked} (tag action = retry) and {@code pgvs3.stream.dead.lettered}</li>
 * <li>{@code pgvs3.stream.consumer.lag} (events) and {@code pgvs3.stream.consumer.lag.seconds} (gauges)</li>
 * <li>{@code pgvs3.jobs.enqueued}, {@code pgvs3.jobs.finished} (tag outcome), {@code pgvs3.jobs.depth} (gauge,
 * tag state)</li>
 * <li>{@code pgvs3.handler} (timer, tags kind, id, queue, outcome)</li>
 * <li>{@code pgvs3.maintenance.duration} (timer, tag leader), {@code pgvs3.maintenance.handled} (counter, tag
 * task), {@code pgvs3.maintenance.failures}, {@code pgvs3.stream.rotations}</li>
 * </ul>
 */
public class MicrometerPgvs3Metrics implements Pgvs3Metrics {

    private final MeterRegistry registry;
    private final Set<String> gauges = ConcurrentHashMap.newKeySet();
    // a handler timer and a finished-jobs counter are looked up per job: built once per tag set, not per call
    private final Map<HandlerKey, Timer> handlerTimers = new ConcurrentHashMap<>();
    private final Map<FinishedKey, Counter> finishedCounters = new ConcurrentHashMap<>();

    private final Counter maintenanceFailures;
    private final Counter rotations;

    public MicrometerPgvs3Metrics(MeterRegistry registry) {
        this.registry = registry;
        // registered up front, so that they exist (at zero) before the first failure or rotation
        this.maintenanceFailures = Counter.builder("pgvs3.maintenance.failures")
                .description("Maintenance tasks that failed (the task is named in the log)").register(registry);
        this.rotations = Counter.builder("pgvs3.stream.rotations")
                .description("Stream segment rotations run by this instance").register(registry);
    }

    @Override
    public void appended(String queue, int count) {
        registry.counter("pgvs3.stream.appended", "queue", queue).increment(count);
    }

    @Override
    public void received(String queue, String consumer, int count) {
        registry.counter("pgvs3.stream.received", "queue", queue, "consumer", consumer).increment(count);
    }

    @Override
    public void acked(String queue, String consumer, int count) {
        registry.counter("pgvs3.stream.acked", "queue", queue, "consumer", consumer).increment(count);
    }

    @Override
    public void nacked(String queue, String consumer, String action) {
        registry.counter("pgvs3.stream.nacked", "queue", queue, "consumer", consumer, "action", action).increment();
        if ("dead_letter".equals(action)) {
            registry.counter("pgvs3.stream.dead.lettered", "queue", queue, "consumer", consumer).increment();
        }
    }

    @Override
    public void handled(String kind, String id, String queue, Duration duration, boolean success) {
        handlerTimers.computeIfAbsent(new HandlerKey(kind, id, queue, success), key -> Timer.builder("pgvs3.handler")
                .description("Time spent in @StreamListener and @JobHandler methods")
                .tags("kind", kind, "id", id, "queue", queue, "outcome", success ? "success" : "failure")
                .register(registry))
                .record(duration);
    }

    @Override
    public void enqueued(String queue, int count) {
        registry.counter("pgvs3.jobs.enqueued", "queue", queue).increment(count);
    }

    @Override
    public void jobFinished(String queue, String type, String outcome) {
        jobsFinished(queue, type, outcome, 1);
    }

    @Override
    public void jobsFinished(String queue, String type, String outcome, int count) {
        finishedCounters.computeIfAbsent(new FinishedKey(queue, type, outcome),
                key -> registry.counter("pgvs3.jobs.finished", "queue", queue, "type", type, "outcome", outcome))
                .increment(count);
    }

    @Override
    public void maintenance(MaintenanceReport report) {
        Timer.builder("pgvs3.maintenance.duration")
                .description("Duration of maintenance passes; leader=false when another instance held the lock")
                .tag("leader", Boolean.toString(report.ran()))
                .register(registry)
                .record(report.duration());
        report.handled().forEach((task, handled) -> {
            if (handled > 0) {
                registry.counter("pgvs3.maintenance.handled", "task", task).increment(handled);
                if (task.contains("rotat")) {
                    rotations.increment(handled);
                }
            }
        });
        maintenanceFailures.increment(report.failures().size());
    }

    /** Registers gauges for queues, consumers and states that appear in a sample. */
    public void bind(QueueStatsSampler sampler) {
        sampler.onSample(snapshot -> {
            snapshot.lag().forEach((queue, consumers) -> consumers.keySet().forEach(consumer -> {
                if (gauges.add("lag|" + queue + "|" + consumer)) {
                    Gauge.builder("pgvs3.stream.consumer.lag", sampler, s -> lag(s, queue, consumer).events())
                            .description("Messages appended after the consumer's cursor")
                            .tags("queue", queue, "consumer", consumer).register(registry);
                    Gauge.builder("pgvs3.stream.consumer.lag.seconds", sampler,
                            s -> lag(s, queue, consumer).seconds())
                            .description("Age of the consumer's cursor while it is behind")
                            .tags("queue", queue, "consumer", consumer).register(registry);
                }
            }));
            snapshot.jobDepth().forEach((queue, states) -> states.keySet().forEach(state -> {
                if (gauges.add("depth|" + queue + "|" + state)) {
                    Gauge.builder("pgvs3.jobs.depth", sampler, s -> depth(s, queue, state))
                            .description("Jobs in the queue by state")
                            .tags("queue", queue, "state", state).register(registry);
                }
            }));
        });
    }

    private static QueueStatsSampler.ConsumerLag lag(QueueStatsSampler sampler, String queue, String consumer) {
        return sampler.snapshot().lag().getOrDefault(queue, Map.of()).getOrDefault(consumer,
                new QueueStatsSampler.ConsumerLag(0, 0));
    }

    private static double depth(QueueStatsSampler sampler, String queue, String state) {
        return sampler.snapshot().jobDepth().getOrDefault(queue, Map.of()).getOrDefault(state, 0L);
    }

    private record HandlerKey(String kind, String id, String queue, boolean success) {
    }

    private record FinishedKey(String queue, String type, String outcome) {
    }
}
