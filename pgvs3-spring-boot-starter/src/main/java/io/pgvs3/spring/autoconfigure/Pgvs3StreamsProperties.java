package io.pgvs3.spring.autoconfigure;

import java.time.Duration;

/**
 * Configuration under {@code pgvs3.streams.*}.
 */
public class Pgvs3StreamsProperties {

    /** Longest wait_ms a receive may long-poll for. */
    private Duration maxWait = Duration.ofSeconds(5);

    /** Largest payload of one stream message, in bytes of JSON; larger payloads are refused with 413. */
    private long maxPayloadBytes = 1024 * 1024;

    /**
     * Threads that run the attempts of long-poll receives (wait_ms); 0: half the JDBC pool's connections (2 to
     * 16).
     */
    private int longPollThreads = 0;

    /**
     * Queues whose long-polls a connection of their own keeps warm for wake-ups: their receive functions are
     * compiled and planned on it while they wait, and a woken receive runs there. Each costs that connection's
     * backend 2 to 4 MB. 0: no such connection; woken receives run on any pooled connection.
     */
    private int longPollLaneQueues = 32;

    public Duration getMaxWait() {
        return maxWait;
    }

    public void setMaxWait(Duration maxWait) {
        this.maxWait = maxWait;
    }

    public long getMaxPayloadBytes() {
        return maxPayloadBytes;
    }

    public void setMaxPayloadBytes(long maxPayloadBytes) {
        this.maxPayloadBytes = maxPayloadBytes;
    }

    public int getLongPollThreads() {
        return longPollThreads;
    }

    public void setLongPollThreads(int longPollThreads) {
        this.longPollThreads = longPollThreads;
    }

    public int getLongPollLaneQueues() {
        return longPollLaneQueues;
    }

    public void setLongPollLaneQueues(int longPollLaneQueues) {
        this.longPollLaneQueues = longPollLaneQueues;
    }
}
