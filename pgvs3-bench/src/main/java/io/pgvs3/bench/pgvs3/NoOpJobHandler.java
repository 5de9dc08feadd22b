package io.pgvs3.bench.pgvs3;

import io.pgvs3.spring.annotation.JobHandler;
import io.pgvs3.spring.listener.JobContext;
import tools.jackson.databind.JsonNode;

/** A {@code @JobHandler} that does nothing but note when each job reached it. */
public class NoOpJobHandler {

    public static final String QUEUE = "bench-jobs";

    public static final String TYPE = "bench.noop";

    private final LatencyProbe probe;

    public NoOpJobHandler(LatencyProbe probe) {
        this.probe = probe;
    }

    @JobHandler(type = TYPE, queue = QUEUE, concurrency = "${bench.jobs.concurrency:8}")
    public void handle(JsonNode order, JobContext context) {
        probe.entered(context.id());
    }
}
