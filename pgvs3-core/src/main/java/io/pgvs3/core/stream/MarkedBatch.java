package io.pgvs3.core.stream;

/** A receive's result and the mark it looked from (see {@link StreamDelivery#receiveMarked}). */
public record MarkedBatch(StreamBatch batch, AppendMark mark) {
}
