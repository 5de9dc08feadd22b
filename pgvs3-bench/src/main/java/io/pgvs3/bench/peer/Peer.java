package io.pgvs3.bench.peer;

import io.pgvs3.bench.BenchDatabase;
import io.pgvs3.bench.Load;

/**
 * A job queue measured next to pgvs3, on the same server in the same repetition. Each measurement gets a fresh
 * database of its own.
 */
public interface Peer {

    /** A short stable id, used in metric ids. */
    String id();

    /** Name and version, for the report. */
    String name();

    /** The settings it runs with and where they come from, for the report (Markdown). */
    String settings();

    /** Why it cannot run here, or {@code null} when it can; asked once, before the first measurement. */
    String unavailable();

    /** Jobs per second enqueued 1,000 per call by one caller. */
    double enqueueBatch(BenchDatabase database, PeerWorkload workload) throws Exception;

    /** A backlog of no-op jobs drained by the peer's own worker, timed from the worker's start. */
    Load.Drained drain(BenchDatabase database, PeerWorkload workload) throws Exception;

    /** One job per enqueue call at a fixed rate, from the call returning to the handler being entered. */
    LatencyFigures latency(BenchDatabase database, PeerWorkload workload) throws Exception;

    /** Enqueue-to-handler latency in milliseconds. */
    record LatencyFigures(double p50, double p99, double max, long jobs) {
    }
}
