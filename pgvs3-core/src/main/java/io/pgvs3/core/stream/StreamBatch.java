package io.pgvs3.core.stream;

import java.util.List;

/**
 * The result of a receive: a batch of messages between two ticks, or nothing new ({@code batchId} null and no
 * messages).
 */
public record StreamBatch(Long batchId, long startTick, long endTick, List<ReceivedMessage> messages) {

    public StreamBatch {
        messages = List.copyOf(messages);
    }

    public boolean isEmpty() {
        return batchId == null;
    }
}
