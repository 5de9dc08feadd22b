package io.pgvs3.spring.web.streams;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;

import javax.sql.DataSource;

import io.pgvs3.core.catalog.QueueName;
import io.pgvs3.core.notify.NotificationHub;
import io.pgvs3.core.stream.AppendMark;
import io.pgvs3.core.stream.MarkedBatch;
import io.pgvs3.core.stream.ReceiveTarget;
import io.pgvs3.core.stream.StreamBatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Long-polling receives ({@code wait_ms}) without a request thread or a pooled connection held while waiting.
 * <p>
 * A waiting receive on a queue this application has not received from yet first asks, together with the others that
 * arrived meanwhile and in one plain statement, whether its consumer has anything to receive at all
 * ({@link IdleProbe}); only when it may have does it receive. An idle one waits from the mark of that statement as
 * from an empty receive's. A receive is PL/pgSQL, which a pooled connection compiles and plans per queue on its
 * first call; hundreds of first long-polls on as many queues would otherwise each pay for that before they wait.
 * Once a queue has been received from, its long-polls receive at once (a warm receive is cheaper than the check).
 * <p>
 * A waiting receive is a future whose attempts run on a small worker pool (sized below the connection pool, so
 * that other requests still get connections): the first one as soon as a worker is free, later ones whenever the
 * queue's channel is notified, ahead of first attempts still queued (one hub registration per queue, shared by its
 * waiters). The channel is registered before the first attempt, and registering never waits for the database: the
 * hub LISTENs to new channels within its poll interval, so under load most first attempts already start while
 * their channel is LISTENed to, and then nothing can be appended unnoticed afterwards.
 * <p>
 * A first attempt that found nothing before its channel was LISTENed to may have missed an append that committed
 * before the LISTEN (its notification is gone). Instead of receiving again, such waiters are checked together, one
 * statement for many queues, against the mark their attempt looked from ({@link AppendProbe}): only those whose
 * queue was appended to since receive again. At its deadline a waiter answers with its last empty result when
 * nothing woke it since it was known to have missed nothing while LISTENing; else it is checked (or tried) once
 * more. While the hub is disconnected (PgBouncer in transaction mode, a lost connection), waiters are retried on a
 * fixed poll interval instead.
 */
public class StreamLongPoll implements AutoCloseable {

    static final Duration FALLBACK_POLL = Duration.ofMillis(250);

    private static final Logger log = LoggerFactory.getLogger(StreamLongPoll.class);

    /** Which marks of a batch have had events appended to their queue since (see {@code StreamIdleChecks#appendedSince}). */
    @FunctionalInterface
    public interface AppendProbe {

        Set<AppendMark> appendedSince(Collection<AppendMark> marks);
    }

    /**
     * Which targets certainly have nothing to receive now, each with the empty batch a receive would answer and its
     * mark (see {@code StreamIdleChecks#idle}); the others receive.
     */
    @FunctionalInterface
    public interface IdleProbe {

        Map<ReceiveTarget, MarkedBatch> idle(Collection<ReceiveTarget> targets);
    }

    /** Most waiters one idle check takes. */
    static final int CHECK_CHUNK = 100;

    private final NotificationHub hub;
    private final AppendProbe probe;
    private final IdleProbe idleProbe;
    private final LongPollWorkers workers;
    private final ScheduledExecutorService timer;
    private final Map<String, Set<LongPollWaiter>> waiters = new ConcurrentHashMap<>();
    private final Map<String, NotificationHub.Registration> registrations = new ConcurrentHashMap<>();
    /** Waiters to check with the next probe; one probe runs at a time and takes all that wait. */
    private final WaiterBatcher<LongPollWaiter> toProbe;
    /** Waiters whose first look is an idle check, in arrival order; a few checkers take them in chunks. */
    private final WaiterBatcher<LongPollWaiter> toCheck;
    /**
     * Queues a receive of this application has run on: their functions are compiled on some pooled connections
     * already, and a receive there (about a millisecond) costs less than the check, which is planned on every call.
     */
    private final Set<String> received = ConcurrentHashMap.newKeySet();
    /** Where woken waiters of warmed queues receive; null without one. */
    private final WakeLane lane;

    /**
     * The wake lane's data source (the one the store's statements use), how a receive is warmed on the connection
     * it runs on, and how many queues the lane warms at most.
     */
    public record WakeLaneSettings(DataSource dataSource, Consumer<ReceiveTarget> warmUp, int queues) {
    }

    /** Without an idle check: every waiter's first look is a receive. */
    public StreamLongPoll(NotificationHub hub, AppendProbe probe, int workerThreads) {
        this(hub, probe, null, workerThreads);
    }

    /** Without a wake lane: woken waiters receive on the workers' pooled connections. */
    public StreamLongPoll(NotificationHub hub, AppendProbe probe, IdleProbe idleProbe, int workerThreads) {
        this(hub, probe, idleProbe, workerThreads, null);
    }

    /**
     * With a wake lane: a connection of the long-poll's own on which the queues of waiting receives are warmed
     * ({@code warmUp} runs there) and their wake-ups received, for at most {@code laneQueues} queues (see
     * {@link WakeLane}); null: none.
     */
    public StreamLongPoll(NotificationHub hub, AppendProbe probe, IdleProbe idleProbe, int workerThreads,
            WakeLaneSettings lane) {
        this.hub = hub;
        this.probe = probe;
        this.idleProbe = idleProbe;
        this.lane = lane == null || lane.queues() < 1 ? null
                : new WakeLane(lane.dataSource(), lane.warmUp(), lane.queues());
        this.workers = new LongPollWorkers(workerThreads);
        this.toProbe = new WaiterBatcher<>(1, Integer.MAX_VALUE, body -> workers.submit(false, body), this::probe);
        // half the workers at most, so that wake-ups and deadlines find a free one while a burst is checked
        this.toCheck = new WaiterBatcher<>(Math.max(1, workerThreads / 2), CHECK_CHUNK,
                body -> workers.submit(true, body), this::check);
        this.timer = Executors.newSingleThreadScheduledExecutor(LongPollWorkers.daemon("pgvs3-long-poll-timer-"));
        long poll = FALLBACK_POLL.toMillis();
        timer.scheduleWithFixedDelay(this::pollWhileDisconnected, poll, poll, TimeUnit.MILLISECONDS);
    }

    /**
     * Completes with the first non-empty result of {@code attempt}, or with the last (empty) one once {@code wait}
     * has passed. Every attempt, the first included, runs on the worker pool; the caller's thread returns at once.
     */
    public CompletableFuture<StreamBatch> receive(QueueName queue, Duration wait, Supplier<MarkedBatch> attempt) {
        return receive(queue, null, wait, attempt);
    }

    /**
     * As {@link #receive(QueueName, Duration, Supplier)}, for {@code target}: its first look is an idle check shared
     * with the other waiters that arrived meanwhile, and {@code attempt} runs only when that finds it may have
     * something (or once something may have changed).
     */
    public CompletableFuture<StreamBatch> receive(ReceiveTarget target, Duration wait, Supplier<MarkedBatch> attempt) {
        return receive(target.queue(), target, wait, attempt);
    }

    private CompletableFuture<StreamBatch> receive(QueueName queue, ReceiveTarget target, Duration wait,
            Supplier<MarkedBatch> attempt) {
        String channel = NotificationHub.channelFor(queue);
        LongPollWaiter waiter = new LongPollWaiter(queue.value(), channel, target, attempt);
        boolean check = target != null && idleProbe != null && !received.contains(queue.value());
        if (check) {
            // the check holds the waiter as an attempt would: a deadline or wake-up meanwhile is taken up after it
            waiter.running.set(true);
        }
        synchronized (registrations) {
            waiters.computeIfAbsent(queue.value(), key -> ConcurrentHashMap.newKeySet()).add(waiter);
            // registered before the first look, so that whatever that look does not see is notified or probed
            registrations.computeIfAbsent(queue.value(), key -> hub.listen(channel, () -> wakeAll(key)));
        }
        if (lane != null && target != null) {
            // in the order waiters arrive: their first looks end in no fixed order
            lane.reserve(queue.value());
        }
        waiter.timeout = timer.schedule(() -> {
            waiter.expired = true;
            wake(waiter, false);
        }, wait.toMillis(), TimeUnit.MILLISECONDS);
        if (check) {
            toCheck.add(waiter);
        }
        else {
            wake(waiter, false);
        }
        return waiter.result;
    }

    /** Forgets a dropped queue's hub registration. */
    public void forget(QueueName queue) {
        received.remove(queue.value());
        if (lane != null) {
            lane.forget(queue.value());
        }
        NotificationHub.Registration registration = registrations.remove(queue.value());
        if (registration != null) {
            registration.close();
        }
    }

    int waiting() {
        return waiters.values().stream().mapToInt(Set::size).sum();
    }

    /** Whether woken waiters of the queue receive on the wake lane's connection, where it is warmed. */
    boolean warmedOnLane(QueueName queue) {
        return lane != null && lane.isWarmed(queue.value());
    }

    @Override
    public void close() {
        registrations.values().forEach(NotificationHub.Registration::close);
        registrations.clear();
        timer.shutdownNow();
        workers.shutdownNow();
        if (lane != null) {
            lane.close();
        }
    }

    private void pollWhileDisconnected() {
        if (!hub.isConnected()) {
            waiters.keySet().forEach(this::wakeAll);
        }
    }

    private void wakeAll(String queue) {
        Set<LongPollWaiter> set = waiters.get(queue);
        if (set != null) {
            set.forEach(waiter -> wake(waiter, true));
        }
    }

    /** Schedules an attempt; {@code notified}: something may have changed (not merely the deadline passed). */
    private void wake(LongPollWaiter waiter, boolean notified) {
        if (notified) {
            waiter.notified.set(true);
        }
        waiter.pending.set(true);
        tryStart(waiter);
    }

    private void run(LongPollWaiter waiter) {
        do {
            while (waiter.pending.getAndSet(false) && !waiter.result.isDone()) {
                step(waiter);
            }
            waiter.running.set(false);
        }
        while (waiter.pending.get() && !waiter.result.isDone() && waiter.running.compareAndSet(false, true));
    }

    private void step(LongPollWaiter waiter) {
        boolean last = waiter.expired;
        boolean notified = waiter.notified.getAndSet(false);
        boolean listening = hub.isListening(waiter.channel);
        if (listening && waiter.emptyWhileListening != null && !notified) {
            if (last) {
                // no notification since an attempt (or a probe) that found nothing while LISTENing
                complete(waiter, waiter.emptyWhileListening);
            }
            return;
        }
        AppendMark mark = waiter.mark;
        if (listening && waiter.emptyWhileListening == null && mark != null) {
            // the last attempt looked before the LISTEN ran: whether it missed anything is checked with others'
            toProbe.add(waiter);
            return;
        }
        try {
            MarkedBatch attempt = waiter.attempt.get();
            received.add(waiter.queue);
            StreamBatch batch = attempt.batch();
            if (!batch.isEmpty() || last) {
                complete(waiter, batch);
            }
            else {
                waiter.foundNothing(batch, attempt.mark(), listening);
                warmOnLane(waiter);
            }
        }
        catch (RuntimeException ex) {
            synchronized (registrations) {
                finish(waiter);
                Set<LongPollWaiter> set = waiters.get(waiter.queue);
                if (set != null && set.isEmpty()) {
                    // a receive that failed (on a queue that does not exist, say) leaves no LISTEN behind
                    forget(QueueName.of(waiter.queue));
                }
            }
            waiter.result.completeExceptionally(ex);
        }
    }

    /**
     * The first look of waiters that hold their {@code running} flag: the idle ones wait from the check's mark as
     * from an empty attempt's (it was taken after their channel was registered, so what it does not show is
     * notified once LISTENed to, or found by a probe); the others receive.
     */
    private void check(List<LongPollWaiter> batch) {
        List<ReceiveTarget> targets = new ArrayList<>(batch.size());
        boolean[] listening = new boolean[batch.size()];
        for (int i = 0; i < batch.size(); i++) {
            LongPollWaiter waiter = batch.get(i);
            targets.add(waiter.target);
            // the check's snapshot follows: what notified the waiter so far (the wake-up once its LISTEN ran, say)
            // has committed before it, and only what notifies from now on calls for a receive
            waiter.notified.set(false);
            waiter.pending.set(false);
            // read before the check's snapshot too: only then does "nothing found" hold while LISTENed to
            listening[i] = hub.isListening(waiter.channel);
        }
        Map<ReceiveTarget, MarkedBatch> idle;
        try {
            idle = idleProbe.idle(targets);
        }
        catch (RuntimeException ex) {
            log.debug("Checking {} long-polls for anything to receive failed; they receive: {}", targets.size(),
                    ex.getMessage());
            idle = Map.of();
        }
        for (int i = 0; i < batch.size(); i++) {
            LongPollWaiter waiter = batch.get(i);
            MarkedBatch found = idle.get(waiter.target);
            if (found != null) {
                waiter.foundNothing(found.batch(), found.mark(), listening[i]);
                warmOnLane(waiter);
            }
            if (found == null || waiter.expired) {
                waiter.pending.set(true);
            }
            waiter.running.set(false);
            if (waiter.pending.get()) {
                tryStart(waiter);
            }
        }
    }

    /**
     * Checks waiters whose last attempt looked before their channel was LISTENed to: one whose queue was appended to
     * since tries again; the others now know they missed nothing, and answer at their deadline without asking.
     */
    private void probe(List<LongPollWaiter> batch) {
        List<LongPollWaiter> checked = new ArrayList<>();
        List<AppendMark> marks = new ArrayList<>();
        for (LongPollWaiter waiter : batch) {
            AppendMark mark = waiter.mark;
            if (waiter.result.isDone()) {
                continue;
            }
            if (mark == null || !hub.isListening(waiter.channel)) {
                // not LISTENed to any more: the waiter tries (the probe's answer could be stale by the time it acts)
                waiter.mark = null;
                wake(waiter, true);
                continue;
            }
            checked.add(waiter);
            marks.add(mark);
        }
        if (checked.isEmpty()) {
            return;
        }
        Set<AppendMark> appended;
        try {
            appended = probe.appendedSince(marks);
        }
        catch (RuntimeException ex) {
            log.debug("Checking {} long-polls for appends failed; they receive again: {}", marks.size(),
                    ex.getMessage());
            appended = Set.copyOf(marks);
        }
        for (int i = 0; i < checked.size(); i++) {
            LongPollWaiter waiter = checked.get(i);
            AppendMark mark = marks.get(i);
            if (waiter.mark != mark) {
                continue;
            }
            if (appended.contains(mark)) {
                waiter.mark = null;
                wake(waiter, true);
            }
            else {
                // the probe's snapshot followed the LISTEN: a later append notifies
                waiter.emptyWhileListening = waiter.lastEmpty;
                if (waiter.expired) {
                    wake(waiter, false);
                }
            }
        }
    }

    private void complete(LongPollWaiter waiter, StreamBatch batch) {
        finish(waiter);
        waiter.result.complete(batch);
    }

    private void finish(LongPollWaiter waiter) {
        ScheduledFuture<?> timeout = waiter.timeout;
        if (timeout != null) {
            timeout.cancel(false);
        }
        toProbe.remove(waiter);
        Set<LongPollWaiter> set = waiters.get(waiter.queue);
        if (set != null) {
            set.remove(waiter);
        }
    }

    /**
     * Starts a look for the waiter unless one runs (or it is done); the first look goes after work under way. A
     * woken waiter of a queue warmed on the wake lane looks there when the lane is free.
     */
    private void tryStart(LongPollWaiter waiter) {
        if (!waiter.result.isDone() && waiter.running.compareAndSet(false, true)) {
            Runnable look = () -> run(waiter);
            if (lane == null || !waiter.notified.get() || !lane.wake(waiter.queue, look)) {
                workers.submit(waiter.lastEmpty == null, look);
            }
        }
    }

    /** A waiter that waits for a wake-up: its queue is warmed on the wake lane, unless it is already (or full). */
    private void warmOnLane(LongPollWaiter waiter) {
        if (lane != null && waiter.target != null && !waiter.expired) {
            lane.warm(waiter.target);
        }
    }
}
