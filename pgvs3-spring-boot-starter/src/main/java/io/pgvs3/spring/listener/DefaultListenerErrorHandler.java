package io.pgvs3.spring.listener;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.util.backoff.BackOff;
import org.springframework.util.backoff.BackOffExecution;

/**
 * The error handler listeners use unless told otherwise, after spring-kafka's {@code DefaultErrorHandler}:
 * <ul>
 * <li>An exception classified as not retryable (by default {@link MessageConversionException} and
 * {@link ClassCastException}; see {@link #addNotRetryableExceptions}) is recovered at once.</li>
 * <li>Otherwise a stream message is retried after the {@link BackOff}'s delay for its attempt, until the back-off
 * stops; a job is retried by its own retry policy until its last attempt.</li>
 * <li>Recovering calls the {@link ListenerRecoverer}, when one is set (the message then counts as handled), else
 * dead-letters the stream message in the database; a job is failed without retry (discarded or dead-lettered as
 * its policy's {@code on_exhaustion} says).</li>
 * </ul>
 * Exceptions are classified by the first match along the cause chain, an exception's own class before its causes;
 * a class matches its subclasses too.
 */
public class DefaultListenerErrorHandler implements ListenerErrorHandler {

    private static final Logger log = LoggerFactory.getLogger(DefaultListenerErrorHandler.class);

    private final BackOff backOff;
    private final Map<Class<? extends Throwable>, Boolean> classifications = new LinkedHashMap<>();
    private volatile ListenerRecoverer recoverer;

    public DefaultListenerErrorHandler(BackOff backOff) {
        this(backOff, null);
    }

    public DefaultListenerErrorHandler(BackOff backOff, ListenerRecoverer recoverer) {
        this.backOff = backOff;
        this.recoverer = recoverer;
        classifications.put(MessageConversionException.class, false);
        classifications.put(ClassCastException.class, false);
    }

    /** The recoverer for deliveries that will not be retried; null dead-letters them in the database. */
    public void setRecoverer(ListenerRecoverer recoverer) {
        this.recoverer = recoverer;
    }

    @SafeVarargs
    public final DefaultListenerErrorHandler addNotRetryableExceptions(Class<? extends Throwable>... types) {
        for (Class<? extends Throwable> type : types) {
            classifications.put(type, false);
        }
        return this;
    }

    /** Makes exceptions retryable again, including those not retryable by default. */
    @SafeVarargs
    public final DefaultListenerErrorHandler addRetryableExceptions(Class<? extends Throwable>... types) {
        for (Class<? extends Throwable> type : types) {
            classifications.put(type, true);
        }
        return this;
    }

    /** Whether a delivery that threw {@code error} may be retried. */
    public boolean isRetryable(Throwable error) {
        for (Throwable current = error; current != null; current = current.getCause() == current ? null
                : current.getCause()) {
            Boolean found = classify(current.getClass());
            if (found != null) {
                return found;
            }
        }
        return true;
    }

    private Boolean classify(Class<?> type) {
        Boolean best = null;
        Class<?> bestType = null;
        for (Map.Entry<Class<? extends Throwable>, Boolean> entry : classifications.entrySet()) {
            if (entry.getKey().isAssignableFrom(type)
                    && (bestType == null || bestType.isAssignableFrom(entry.getKey()))) {
                best = entry.getValue();
                bestType = entry.getKey();
            }
        }
        return best;
    }

    @Override
    public FailureAction handle(DeliveryFailure failure) {
        if (!isRetryable(failure.error())) {
            return recover(failure);
        }
        if (failure.kind() == DeliveryFailure.Kind.JOB) {
            return failure.maxAttempts() > 0 && failure.attempt() >= failure.maxAttempts() ? recover(failure)
                    : FailureAction.retry(Duration.ZERO);
        }
        Duration delay = delay(failure.attempt());
        return delay == null ? recover(failure) : FailureAction.retry(delay);
    }

    /** The back-off's delay before attempt {@code failedAttempt + 1}, or null when it stops before then. */
    Duration delay(int failedAttempt) {
        BackOffExecution execution = backOff.start();
        long delay = BackOffExecution.STOP;
        for (int i = 0; i < failedAttempt; i++) {
            delay = execution.nextBackOff();
            if (delay == BackOffExecution.STOP) {
                return null;
            }
        }
        return Duration.ofMillis(Math.max(0, delay));
    }

    private FailureAction recover(DeliveryFailure failure) {
        ListenerRecoverer current = recoverer;
        if (current == null) {
            return FailureAction.deadLetter();
        }
        try {
            current.recover(failure);
            return FailureAction.recovered();
        }
        catch (Exception | Error ex) {
            log.error("Recoverer of {} failed on {} {} of {}; it is dead-lettered instead: {}", failure.listenerId(),
                    failure.kind() == DeliveryFailure.Kind.JOB ? "job" : "message", failure.messageId(),
                    failure.queue(), ex.toString());
            return FailureAction.deadLetter();
        }
    }
}
