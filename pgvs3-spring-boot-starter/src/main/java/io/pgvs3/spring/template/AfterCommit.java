package io.pgvs3.spring.template;

import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Runs work, such as counting appended messages or enqueued jobs, once the caller's transaction has committed; at
 * once when there is no transaction. A rolled-back transaction runs nothing, so meters count only what happened.
 */
public final class AfterCommit {

    private AfterCommit() {
    }

    public static void run(Runnable work) {
        if (TransactionSynchronizationManager.isSynchronizationActive()
                && TransactionSynchronizationManager.isActualTransactionActive()) {
            TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {

                @Override
                public void afterCommit() {
                    work.run();
                }
            });
        }
        else {
            work.run();
        }
    }
}
