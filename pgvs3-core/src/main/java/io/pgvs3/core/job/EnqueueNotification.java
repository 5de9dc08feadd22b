package io.pgvs3.core.job;

/**
 * Whether an enqueue notifies the queue's channel from its own transaction (the {@code p_notify} argument of the
 * queue's {@code enqueue_rows} and {@code enqueue_job}).
 */
enum EnqueueNotification {

    /** The caller wakes the listeners after the commit. */
    NEVER(0),

    /** Inside a caller's transaction: the notification goes out with its commit. */
    ALWAYS(1),

    /**
     * From this transaction unless another enqueue transaction notifying this way is still running; the caller wakes
     * the listeners after the commit when it did not (see the queue's {@code enqueue_notify}).
     */
    UNLESS_BUSY(2);

    private final int code;

    EnqueueNotification(int code) {
        this.code = code;
    }

    int code() {
        return code;
    }
}
