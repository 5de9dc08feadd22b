package io.pgvs3.bench;

import java.util.List;

import io.pgvs3.bench.scenario.BaselineScenario;
import io.pgvs3.bench.scenario.BloatScenario;
import io.pgvs3.bench.scenario.JobsScenario;
import io.pgvs3.bench.scenario.PeersScenario;
import io.pgvs3.bench.scenario.StreamAppendScenario;
import io.pgvs3.bench.scenario.StreamConsumeScenario;
import io.pgvs3.bench.scenario.StreamLatencyScenario;
import io.pgvs3.bench.scenario.StreamLongPollScenario;

/** The goals of the benchmark issue, in the order the report lists them. */
final class Targets {

    private Targets() {
    }

    static List<Target> all() {
        return List.of(
                Target.atLeast("Stream append, template, 1000 per call", StreamAppendScenario.templateMetric(1000, true),
                        100_000, "events/s"),
                Target.ratioAtLeast("Stream append, template, 1000 per call ÷ multi-row INSERT of 1000",
                        StreamAppendScenario.templateMetric(1000, true), BaselineScenario.insertMetric(1000, true), 0.7),
                Target.atLeast("Stream append over HTTP, 1000 per request", StreamAppendScenario.HTTP_BATCH_METRIC,
                        40_000, "events/s"),
                Target.atLeast("Stream consume, receive + ack, ceiling 1000", StreamConsumeScenario.ceilingMetric(1000),
                        150_000, "events/s"),
                Target.atMost("End-to-end stream latency at 1,000 events/s, p50", StreamLatencyScenario.P50, 5, "ms"),
                Target.atMost("End-to-end stream latency at 1,000 events/s, p99", StreamLatencyScenario.P99, 50, "ms"),
                Target.ratioAtLeast("Stream append, template, 1000 per call ÷ multi-row INSERT of 1000 (streams hot path)",
                        StreamAppendScenario.templateMetric(1000, true), BaselineScenario.insertMetric(1000, true), 1.2),
                Target.ratioAtLeast("Stream consume, receive + ack, ceiling 1000 ÷ multi-row INSERT of 1000",
                        StreamConsumeScenario.ceilingMetric(1000), BaselineScenario.insertMetric(1000, true), 1.5),
                Target.ratioAtLeast("Stream consume, ceiling 1000, a backlog in one range ÷ ticked every 1000",
                        StreamConsumeScenario.UNTICKED, StreamConsumeScenario.ceilingMetric(1000), 0.8),
                Target.ratioAtLeast("Stream consume, 4 cooperative members ÷ 1 consumer",
                        StreamConsumeScenario.COOPERATIVE, StreamConsumeScenario.ceilingMetric(1000), 1.5),
                Target.ratioAtLeast("Stream consume, 4 cooperative members ÷ 1 consumer, ack + receive in one call",
                        StreamConsumeScenario.COOPERATIVE_COMBINED, StreamConsumeScenario.COMBINED, 1.5),
                Target.ratioAtLeast("Stream consume, 4 fan-out consumers ÷ 1 consumer",
                        StreamConsumeScenario.FAN_OUT, StreamConsumeScenario.ceilingMetric(1000), 2.0),
                Target.atMost("End-to-end stream latency at 1,000 events/s, p99 (streams hot path)",
                        StreamLatencyScenario.P99, 25, "ms"),
                Target.atMost("End-to-end stream latency at 10,000 events/s, p99", StreamLatencyScenario.HIGH_P99, 50,
                        "ms"),
                Target.atMost("Concurrent long-polls: latest answer past wait_ms", StreamLongPollScenario.LATE_MAX, 250,
                        "ms"),
                Target.atMost("Concurrent long-polls: append → waiting receive answered, max",
                        StreamLongPollScenario.WAKE_MAX, 20, "ms"),
                Target.atMost("Concurrent long-polls: health p99 while they wait", StreamLongPollScenario.HEALTH_P99, 50,
                        "ms"),
                Target.atMost("Concurrent long-polls: LISTEN connections", StreamLongPollScenario.LISTENERS, 1, ""),
                Target.atLeast("Jobs drained by @JobHandler containers (no-op)", JobsScenario.HANDLER_DRAIN, 20_000,
                        "jobs/s"),
                Target.atLeast("Job batch enqueue, 1000 per call", JobsScenario.enqueueBatchMetric(true), 50_000,
                        "jobs/s"),
                Target.atMost("One-by-one enqueue → handler start, p50", JobsScenario.LATENCY_P50, 4, "ms"),
                Target.ratioAtLeast("@JobHandler drain ÷ graphile-worker batched drain (same run)",
                        JobsScenario.HANDLER_DRAIN, PeersScenario.drainMetric(PeersScenario.GRAPHILE_WORKER), 1.0),
                Target.ratioAtLeast("@JobHandler drain ÷ best Java peer drain (db-scheduler, JobRunr; same run)",
                        JobsScenario.HANDLER_DRAIN, PeersScenario.JAVA_BEST_DRAIN, 1.5),
                Target.ratioAtLeast("Job batch enqueue, 1000 per call ÷ graphile-worker addJobs of 1000 (same run)",
                        JobsScenario.enqueueBatchMetric(true), PeersScenario.enqueueMetric(PeersScenario.GRAPHILE_WORKER),
                        1.0),
                Target.ratioAtLeast("One-job enqueue ÷ single-row INSERT + COMMIT, 1 client (same run)",
                        JobsScenario.enqueueSingleMetric(true), BaselineScenario.commitMetric(1, true), 0.8),
                Target.ratioAtMost("Enqueue → handler p50 ÷ graphile-worker's (same run)", JobsScenario.LATENCY_P50,
                        PeersScenario.p50Metric(PeersScenario.GRAPHILE_WORKER), 1.0),
                Target.ratioAtLeast("Jobs over HTTP, 8 workers, fetch count 1 ÷ single-row commit limit (8 clients)",
                        JobsScenario.httpMetric(1), BaselineScenario.commitMetric(8, true), 1.0),
                Target.ratioAtLeast("Jobs over HTTP, 8 workers, fetch count 100 ÷ single-row commit limit (8 clients)",
                        JobsScenario.httpMetric(100), BaselineScenario.commitMetric(8, true), 1.0),
                Target.atMost("Dead row versions per completed job (typical queues: 2)", JobsScenario.DEAD_PER_JOB, 2,
                        "versions/job"),
                Target.atMost("Event segments: dead tuples after the stream run", BloatScenario.eventDead(false), 0, "tuples"),
                Target.atMost("Event segments: dead tuples after the stream run, snapshot held", BloatScenario.eventDead(true),
                        0, "tuples"),
                Target.ratioAtLeast("Streams with a held snapshot ÷ without", BloatScenario.streamsRate(true),
                        BloatScenario.streamsRate(false), 0.9),
                Target.ratioAtLeast("Jobs with a held snapshot ÷ without", BloatScenario.jobsRate(true),
                        BloatScenario.jobsRate(false), 0.8));
    }
}
