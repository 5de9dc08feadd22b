package io.pgvs3.spring.listener;

import io.pgvs3.core.stream.StreamBatch;
import io.pgvs3.core.stream.StreamStore;
import io.pgvs3.spring.metrics.Pgvs3Metrics;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The ack a stream listener's member still owes: a batch a non-transactional listener handled completely, acked with
 * the member's next receive ({@link StreamStore#ackAndReceive}), or on its own before a pause, at stop or after a
 * failed receive. One per member thread.
 */
final class PendingBatchAck {

    // the container's category, where these lines were always logged
    private static final Logger log = LoggerFactory.getLogger(StreamListenerContainer.class);

    private final StreamListenerEndpoint endpoint;
    private final StreamStore store;
    private final Pgvs3Metrics metrics;

    private Long batchId;
    private int size;

    PendingBatchAck(StreamListenerEndpoint endpoint, StreamStore store, Pgvs3Metrics metrics) {
        this.endpoint = endpoint;
        this.store = store;
        this.metrics = metrics;
    }

    /** Owes the ack of a handled batch of {@code size} messages. */
    void hold(long batchId, int size) {
        this.batchId = batchId;
        this.size = size;
    }

    /**
     * Receives the member's next batch: at most the listener's batch size, which therefore also bounds what a stop
     * in the middle of a batch leaves to be delivered again. A handled batch still to be acked is acked by the same
     * call, in the same transaction: a listener's cycle costs one commit, not two.
     */
    StreamBatch receive(String member) {
        if (batchId == null) {
            return store.receive(endpoint.queue(), endpoint.consumer(), member, endpoint.maxBatchSize());
        }
        StreamBatch batch = store.ackAndReceive(endpoint.queue(), batchId, endpoint.consumer(), member,
                endpoint.maxBatchSize());
        acked();
        return batch;
    }

    /** Acks a handled batch on its own (before a pause, at stop, after a failed receive); failures are logged. */
    void flush() {
        if (batchId == null) {
            return;
        }
        try {
            store.ack(endpoint.queue(), batchId);
            acked();
        }
        catch (RuntimeException ex) {
            log.warn("Stream listener {} could not ack batch {}; it is delivered again: {}", endpoint.id(),
                    batchId, ex.toString());
            batchId = null;
        }
    }

    private void acked() {
        metrics.acked(endpoint.queue(), endpoint.consumer(), size);
        batchId = null;
    }
}
