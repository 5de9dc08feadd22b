package io.pgvs3.bench.pgvs3;

import io.pgvs3.spring.annotation.StreamListener;
import io.pgvs3.spring.listener.StreamMessage;
import tools.jackson.databind.JsonNode;

/** The {@code @StreamListener} of the latency scenario: it notes when each message reached it. */
public class LatencyStreamListener {

    public static final String QUEUE = "bench-latency";

    private final LatencyProbe probe;

    public LatencyStreamListener(LatencyProbe probe) {
        this.probe = probe;
    }

    @StreamListener(queue = QUEUE, consumer = "latency")
    public void on(StreamMessage<JsonNode> message) {
        probe.entered(message.id());
    }
}
