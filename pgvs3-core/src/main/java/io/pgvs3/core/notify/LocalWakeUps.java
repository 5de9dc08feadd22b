package io.pgvs3.core.notify;

import java.util.List;

import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Wakes this process's listeners of channels for writes it committed itself, through its LISTEN hub (see
 * {@link NotificationHub#wakeUpLocally}), so that they need not wait for the notification to come back from the
 * server. Without a hub (a store used where nothing of this process listens) it does nothing.
 */
public final class LocalWakeUps {

    private final NotificationHub hub;

    /** @param hub this process's LISTEN hub on the same database; {@code null}: none */
    public LocalWakeUps(NotificationHub hub) {
        this.hub = hub;
    }

    /** Wakes the channel's listeners now: for a write that has committed. */
    public void now(String channel) {
        if (hub != null) {
            hub.wakeUpLocally(channel);
        }
    }

    /**
     * Wakes the channels' listeners once the caller's transaction has committed, never after a rollback. Without
     * transaction synchronization nothing is registered: the notification the transaction sends wakes them.
     */
    public void afterCommit(List<String> channels) {
        if (hub == null || channels.isEmpty() || !TransactionSynchronizationManager.isSynchronizationActive()) {
            return;
        }
        TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {

            @Override
            public void afterCommit() {
                channels.forEach(LocalWakeUps.this::now);
            }
        });
    }
}
