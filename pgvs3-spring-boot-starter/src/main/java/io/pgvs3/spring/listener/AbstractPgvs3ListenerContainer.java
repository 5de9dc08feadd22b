package io.pgvs3.spring.listener;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import io.pgvs3.core.catalog.QueueName;
import io.pgvs3.core.notify.NotificationHub;

/**
 * The lifecycle both container kinds share: start and stop under one monitor, the queue's {@code LISTEN}
 * registration held while running, pause and resume, and the wait of a polling thread between fetches (woken by a
 * notification, {@link #wakeUp()} or its polling back-off).
 * <p>
 * A subclass prepares and starts its threads in {@link #doStart()}, which runs once the container is registered
 * for notifications and marked running, and winds them down in {@link #doStop(long, Duration)}, which runs once
 * it is marked stopped and its threads were woken.
 */
public abstract class AbstractPgvs3ListenerContainer implements Pgvs3ListenerContainer {

    /** How long a thread waits after a failed fetch before it tries again. */
    protected static final Duration ERROR_PAUSE = Duration.ofSeconds(1);

    protected final PollingSettings polling;

    private final NotificationHub notifications;
    private final WakeUpSignal signal = new WakeUpSignal();
    private final Object lifecycleMonitor = new Object();
    private volatile boolean running;
    private volatile boolean paused;
    private volatile boolean abandoned;
    private NotificationHub.Registration registration;

    protected AbstractPgvs3ListenerContainer(NotificationHub notifications, PollingSettings polling) {
        this.notifications = polling.listen() ? notifications : null;
        this.polling = polling;
    }

    @Override
    public final void start() {
        synchronized (lifecycleMonitor) {
            if (running) {
                return;
            }
            beforeStart();
            if (notifications != null) {
                registration = notifications.listen(NotificationHub.channelFor(QueueName.of(queue())), signal::signal);
            }
            abandoned = false;
            running = true;
            try {
                doStart();
            }
            catch (RuntimeException | Error ex) {
                running = false;
                closeRegistration();
                throw ex;
            }
        }
    }

    /** Work that must succeed before anything runs (a failure leaves the container stopped). */
    protected void beforeStart() {
    }

    /** Starts the container's threads; {@link #isRunning()} is already true. */
    protected abstract void doStart();

    @Override
    public final void stop(Duration timeout) {
        synchronized (lifecycleMonitor) {
            if (!running) {
                return;
            }
            long deadline = System.nanoTime() + timeout.toNanos();
            running = false;
            closeRegistration();
            signal.signal();
            doStop(deadline, timeout);
        }
    }

    /** Stops fetching, lets in-flight work finish until {@code deadlineNanos}, then releases what is left. */
    protected abstract void doStop(long deadlineNanos, Duration timeout);

    /**
     * Marks the work in flight as abandoned once the shutdown timeout passed: from then on no handler call starts,
     * no fetch is issued and nothing is acknowledged; what is held is released for redelivery.
     */
    protected final void abandon() {
        abandoned = true;
    }

    /** Whether the shutdown timeout passed while work was in flight (see {@link #abandon()}). */
    protected final boolean isAbandoned() {
        return abandoned;
    }

    private void closeRegistration() {
        if (registration != null) {
            registration.close();
            registration = null;
        }
    }

    @Override
    public void pause() {
        paused = true;
    }

    @Override
    public void resume() {
        paused = false;
        signal.signal();
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    @Override
    public boolean isPaused() {
        return paused;
    }

    @Override
    public void wakeUp() {
        signal.signal();
    }

    /** The wake-up generation a thread reads before it fetches, to pass to the wait that follows. */
    protected final long wakeUps() {
        return signal.generation();
    }

    /** While paused, waits for a resume or the safety interval and answers true; else answers false at once. */
    protected final boolean waitWhilePaused(long seen) throws InterruptedException {
        if (!paused) {
            return false;
        }
        signal.await(seen, polling.listenPollInterval().toNanos());
        return true;
    }

    /** Waits after a fetch found nothing: for a notification while LISTEN works, else by the polling back-off. */
    protected final void awaitWork(IdlePolicy idle, long seen) throws InterruptedException {
        boolean listening = notifications != null && notifications.isConnected();
        signal.await(seen, idle.nextWaitNanos(listening));
    }

    /** Waits {@link #ERROR_PAUSE} (or less, when woken) after a failed fetch. */
    protected final void pauseAfterError(long seen) throws InterruptedException {
        signal.await(seen, ERROR_PAUSE.toNanos());
    }

    /** What a listener threw: the checked exception a {@link ListenerExecutionFailedException} carries, if any. */
    static Throwable unwrap(Throwable error) {
        return error instanceof ListenerExecutionFailedException && error.getCause() != null ? error.getCause()
                : error;
    }

    protected static Thread daemon(Runnable runnable, String name) {
        Thread thread = new Thread(runnable, name);
        thread.setDaemon(true);
        return thread;
    }

    /** Joins the thread until the deadline; returns at once when the deadline passed. */
    protected static void joinUntil(Thread thread, long deadlineNanos) {
        long left = deadlineNanos - System.nanoTime();
        if (left <= 0) {
            return;
        }
        try {
            thread.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }
}
