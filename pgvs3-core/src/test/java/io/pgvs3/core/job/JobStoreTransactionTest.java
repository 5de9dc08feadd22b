package io.pgvs3.core.job;

import org.junit.jupiter.api.Test;

import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/** The job store inside an application's transactions on the same {@code DataSource}. */
class JobStoreTransactionTest extends JobStoreTestSupport {

    @Test
    void aQueueCreatedByARolledBackEnqueueIsCreatedAgainByTheNextTransaction() {
        TransactionTemplate transaction = new TransactionTemplate(new DataSourceTransactionManager(dataSource));
        transaction.executeWithoutResult(status -> {
            store.enqueue(NewJob.builder("test.outbox").queue("rolled-back").build());
            status.setRollbackOnly();
        });
        assertThat(jdbc.queryForObject("SELECT count(*) FROM pg_namespace WHERE nspname = 's3q_rolled-back'",
                Long.class)).isZero();

        Job job = transaction.execute(status -> store.enqueue(NewJob.builder("test.outbox").queue("rolled-back").build()));

        assertThat(store.get(job.id())).map(Job::state).contains(JobState.AVAILABLE);
        assertThat(jdbc.queryForObject("SELECT count(*) FROM \"s3q_rolled-back\".jobs", Long.class)).isEqualTo(1);
    }

    @Test
    void anEnqueueCommitsAndRollsBackWithTheCallersTransaction() {
        TransactionTemplate transaction = new TransactionTemplate(new DataSourceTransactionManager(dataSource));
        store.enqueue(NewJob.builder("test.outbox").queue("outbox").build());
        transaction.executeWithoutResult(status -> {
            store.enqueue(NewJob.builder("test.outbox").queue("outbox").build());
            status.setRollbackOnly();
        });
        transaction.executeWithoutResult(status -> store.enqueue(NewJob.builder("test.outbox").queue("outbox").build()));
        assertThat(jdbc.queryForObject("SELECT count(*) FROM s3q_outbox.jobs", Long.class)).isEqualTo(2);
    }
}
