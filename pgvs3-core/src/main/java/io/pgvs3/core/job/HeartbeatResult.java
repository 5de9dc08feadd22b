package io.pgvs3.core.job;

import java.util.List;

/**
 * The outcome of a heartbeat: the directive for the worker ({@code running}, {@code quiet} or {@code terminate})
 * and the ids of the jobs whose lease was extended.
 */
public record HeartbeatResult(String directive, List<String> extendedJobIds) {

    public static final String RUNNING = "running";
    public static final String QUIET = "quiet";
    public static final String TERMINATE = "terminate";
}
