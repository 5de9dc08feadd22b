package io.pgvs3.spring.listener;

import java.time.Duration;

/**
 * What follows a failed delivery, as decided by a {@link ListenerErrorHandler}.
 *
 * @param kind  retry, dead-letter or recovered
 * @param delay for {@link Kind#RETRY}: how long until the stream message is delivered again (a job's delay comes
 *              from its own retry policy)
 */
public record FailureAction(Kind kind, Duration delay) {

    public enum Kind {
        /**
         * Deliver again after the delay (a stream message is still dead-lettered once the queue's max_retries is
         * used up).
         */
        RETRY,
        /** No more attempts: the stream message goes to the dead letters at once; the job fails without retry. */
        DEAD_LETTER,
        /** A recoverer took care of it: the stream message counts as handled; the job fails without retry. */
        RECOVERED
    }

    public static FailureAction retry(Duration delay) {
        return new FailureAction(Kind.RETRY, delay);
    }

    public static FailureAction deadLetter() {
        return new FailureAction(Kind.DEAD_LETTER, Duration.ZERO);
    }

    public static FailureAction recovered() {
        return new FailureAction(Kind.RECOVERED, Duration.ZERO);
    }
}
