package io.pgvs3.spring.listener;

import java.time.Duration;

/**
 * Manual acknowledgment, for a {@code @StreamListener} method that declares a parameter of this type. The method
 * acknowledges or nacks what it was given before it returns:
 * <ul>
 * <li>{@link #acknowledge()}: the message (for a batch listener: every message of the batch) is done;</li>
 * <li>{@link #nack(Duration)}: the message (every message of the batch) is delivered again after the delay, with
 * its retry count raised, and dead-lettered once the queue's {@code max_retries} is used up;</li>
 * <li>{@link #nack(int, Duration)} (batch listeners): that message is nacked and the others are done.</li>
 * </ul>
 * A batch is acknowledged once every message of it is acknowledged or nacked. When a method returns without
 * either, the batch stays unacknowledged and is delivered again whole. A method that throws goes to the error
 * handler, as in automatic mode.
 */
public interface Acknowledgment {

    void acknowledge();

    void nack(Duration delay);

    /** For batch listeners: nacks the message at {@code index} of the list given and acknowledges the others. */
    void nack(int index, Duration delay);
}
