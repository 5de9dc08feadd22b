package io.pgvs3.spring.web.streams;

import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

import io.pgvs3.core.catalog.QueueName;
import io.pgvs3.core.notify.NotificationHub;
import io.pgvs3.core.stream.StreamBatch;

/**
 * Long-polling receives ({@code wait_ms}) without a request thread or a pooled connection held while waiting.
 * <p>
 * A waiting receive is a future that is retried on a small worker pool whenever the queue's channel is notified
 * (one hub registration per queue, shared by its waiters). Registering never waits for the database: the hub
 * LISTENs to a new channel within its poll interval and then wakes the channel's waiters once, so an append that
 * committed between the caller's first attempt and the LISTEN is still seen. At its deadline a waiter answers with
 * its last empty result when nothing woke it since an attempt made while the channel was LISTENed to (nothing can
 * have been appended unnoticed), else it tries once more. While the hub is disconnected (PgBouncer in transaction
 * mode, a lost connection), waiters are retried on a fixed poll interval instead.
 */
public class StreamLongPoll implements AutoCloseable {

    static final Duration FALLBACK_POLL = Duration.ofMillis(250);

    private final NotificationHub hub;
    private final ExecutorService workers;
    private final ScheduledExecutorService timer;
    private final Map<String, Set<Waiter>> waiters = new ConcurrentHashMap<>();
    private final Map<String, NotificationHub.Registration> registrations = new ConcurrentHashMap<>();

    public StreamLongPoll(NotificationHub hub, int workerThreads) {
        this.hub = hub;
        this.workers = Executors.newFixedThreadPool(workerThreads, daemon("pgvs3-long-poll-"));
        this.timer = Executors.newSingleThreadScheduledExecutor(daemon("pgvs3-long-poll-timer-"));
        long poll = FALLBACK_POLL.toMillis();
        timer.scheduleWithFixedDelay(this::pollWhileDisconnected, poll, poll, TimeUnit.MILLISECONDS);
    }

    /**
     * Completes with the first non-empty result of {@code attempt}, or with the last (empty) one once
     * {@code wait} has passed.
     */
    public CompletableFuture<StreamBatch> await(QueueName queue, Duration wait, Supplier<StreamBatch> attempt) {
        String channel = NotificationHub.channelFor(queue);
        Waiter waiter = new Waiter(queue.value(), channel, attempt);
        Set<Waiter> set = waiters.computeIfAbsent(queue.value(), key -> ConcurrentHashMap.newKeySet());
        set.add(waiter);
        registrations.computeIfAbsent(queue.value(),
                key -> hub.listen(channel, () -> wakeAll(key)));
        waiter.timeout = timer.schedule(() -> {
            waiter.expired = true;
            wake(waiter, false);
        }, wait.toMillis(), TimeUnit.MILLISECONDS);
        if (hub.isListening(channel)) {
            // an append may have committed between the caller's first attempt and the registration above; when the
            // channel is not LISTENed to yet, the hub wakes its waiters once its LISTEN has run
            wake(waiter, true);
        }
        return waiter.result;
    }

    /** Forgets a dropped queue's hub registration. */
    public void forget(QueueName queue) {
        NotificationHub.Registration registration = registrations.remove(queue.value());
        if (registration != null) {
            registration.close();
        }
    }

    int waiting() {
        return waiters.values().stream().mapToInt(Set::size).sum();
    }

    @Override
    public void close() {
        registrations.values().forEach(NotificationHub.Registration::close);
        registrations.clear();
        timer.shutdownNow();
        workers.shutdownNow();
    }

    private void pollWhileDisconnected() {
        if (!hub.isConnected()) {
            waiters.keySet().forEach(this::wakeAll);
        }
    }

    private void wakeAll(String queue) {
        Set<Waiter> set = waiters.get(queue);
        if (set != null) {
            set.forEach(waiter -> wake(waiter, true));
        }
    }

    /** Schedules an attempt; {@code notified}: something may have changed (not merely the deadline passed). */
    private void wake(Waiter waiter, boolean notified) {
        if (notified) {
            waiter.notified.set(true);
        }
        waiter.pending.set(true);
        if (!waiter.result.isDone() && waiter.running.compareAndSet(false, true)) {
            workers.execute(() -> run(waiter));
        }
    }

    private void run(Waiter waiter) {
        do {
            while (waiter.pending.getAndSet(false) && !waiter.result.isDone()) {
                boolean last = waiter.expired;
                boolean notified = waiter.notified.getAndSet(false);
                if (last && !notified && waiter.emptyWhileListening != null && hub.isListening(waiter.channel)) {
                    // no notification since an attempt that found nothing while LISTENing: nothing was appended
                    finish(waiter);
                    waiter.result.complete(waiter.emptyWhileListening);
                    continue;
                }
                boolean listening = hub.isListening(waiter.channel);
                try {
                    StreamBatch batch = waiter.attempt.get();
                    if (!batch.isEmpty() || last) {
                        finish(waiter);
                        waiter.result.complete(batch);
                    }
                    else {
                        waiter.emptyWhileListening = listening ? batch : null;
                    }
                }
                catch (RuntimeException ex) {
                    finish(waiter);
                    waiter.result.completeExceptionally(ex);
                }
            }
            waiter.running.set(false);
        }
        while (waiter.pending.get() && !waiter.result.isDone() && waiter.running.compareAndSet(false, true));
    }

    private void finish(Waiter waiter) {
        ScheduledFuture<?> timeout = waiter.timeout;
        if (timeout != null) {
            timeout.cancel(false);
        }
        Set<Waiter> set = waiters.get(waiter.queue);
        if (set != null) {
            set.remove(waiter);
        }
    }

    private static ThreadFactory daemon(String prefix) {
        AtomicInteger counter = new AtomicInteger();
        return runnable -> {
            Thread thread = new Thread(runnable, prefix + counter.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        };
    }

    private static final class Waiter {

        final String queue;
        final String channel;
        final Supplier<StreamBatch> attempt;
        final CompletableFuture<StreamBatch> result = new CompletableFuture<>();
        final AtomicBoolean running = new AtomicBoolean();
        final AtomicBoolean pending = new AtomicBoolean();
        volatile boolean expired;
        final AtomicBoolean notified = new AtomicBoolean();
        /** The last attempt's empty result when it started while the channel was LISTENed to, else null. */
        volatile StreamBatch emptyWhileListening;
        volatile ScheduledFuture<?> timeout;

        Waiter(String queue, String channel, Supplier<StreamBatch> attempt) {
            this.queue = queue;
            this.channel = channel;
            this.attempt = attempt;
        }
    }
}
