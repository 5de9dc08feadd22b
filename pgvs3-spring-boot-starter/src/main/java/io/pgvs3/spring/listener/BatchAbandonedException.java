package io.pgvs3.spring.listener;

/** Unwinds a stream batch abandoned at shutdown (and rolls back its transaction, when transactional). */
final class BatchAbandonedException extends RuntimeException {

    private final long batchId;
    private final int size;

    BatchAbandonedException(long batchId, int size) {
        super("batch " + batchId + " abandoned at shutdown", null, false, false);
        this.batchId = batchId;
        this.size = size;
    }

    long batchId() {
        return batchId;
    }

    int size() {
        return size;
    }
}
