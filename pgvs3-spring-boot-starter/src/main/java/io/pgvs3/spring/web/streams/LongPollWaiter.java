package io.pgvs3.spring.web.streams;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

import io.pgvs3.core.stream.AppendMark;
import io.pgvs3.core.stream.MarkedBatch;
import io.pgvs3.core.stream.ReceiveTarget;
import io.pgvs3.core.stream.StreamBatch;

/** One waiting receive of a {@link StreamLongPoll}: what it tries, what it found so far, and its result. */
final class LongPollWaiter {

    final String queue;
    final String channel;
    /** Who receives, for the idle check; null when the first look is an attempt. */
    final ReceiveTarget target;
    final Supplier<MarkedBatch> attempt;
    final CompletableFuture<StreamBatch> result = new CompletableFuture<>();
    /** Held by whoever looks for the waiter now (an attempt, a check): a wake-up meanwhile is taken up after it. */
    final AtomicBoolean running = new AtomicBoolean();
    /** Another look is due once the running one is over. */
    final AtomicBoolean pending = new AtomicBoolean();
    volatile boolean expired;
    final AtomicBoolean notified = new AtomicBoolean();
    /** The last attempt's empty result, once nothing can have been missed since it while LISTENing, else null. */
    volatile StreamBatch emptyWhileListening;
    /** The last attempt's empty result and the mark it looked from; null before the first attempt. */
    volatile StreamBatch lastEmpty;
    volatile AppendMark mark;
    volatile ScheduledFuture<?> timeout;

    LongPollWaiter(String queue, String channel, ReceiveTarget target, Supplier<MarkedBatch> attempt) {
        this.queue = queue;
        this.channel = channel;
        this.target = target;
        this.attempt = attempt;
    }

    /** Takes the result of a look that found nothing: the waiter waits from its mark. */
    void foundNothing(StreamBatch empty, AppendMark from, boolean listening) {
        lastEmpty = empty;
        mark = from;
        emptyWhileListening = listening ? empty : null;
    }
}
