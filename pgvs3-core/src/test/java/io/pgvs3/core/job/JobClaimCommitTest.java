package io.pgvs3.core.job;

import java.sql.SQLException;
import java.util.List;

import io.pgvs3.core.catalog.QueueCatalog;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.SingleConnectionDataSource;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A claim that is a transaction of its own commits without waiting for the WAL flush; a claim inside a caller's
 * transaction leaves that transaction's commit as it was. Each claim's {@code synchronous_commit} is recorded by a
 * trigger on the queue's jobs, which runs in the claim's transaction. The store works on one session that has
 * {@code synchronous_commit} on, as a production session has (the embedded test server runs with it off).
 */
class JobClaimCommitTest extends JobStoreTestSupport {

    private SingleConnectionDataSource session;
    private JdbcTemplate sessionJdbc;
    private JobStore sessionStore;
    private TransactionTemplate transaction;

    @BeforeAll
    void session() throws SQLException {
        session = new SingleConnectionDataSource(dataSource.getConnection(), true);
        sessionJdbc = new JdbcTemplate(session);
        sessionJdbc.execute("SET synchronous_commit = on");
        sessionStore = new JobStore(sessionJdbc, new QueueCatalog(sessionJdbc), JobStoreSettings.DEFAULTS, events);
        transaction = new TransactionTemplate(new DataSourceTransactionManager(session));
        jdbc.execute("CREATE TABLE claim_commits (synchronous_commit text NOT NULL)");
        jdbc.execute("""
                CREATE FUNCTION record_claim_commit() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN
                    INSERT INTO claim_commits VALUES (current_setting('synchronous_commit'));
                    RETURN NULL;
                END
                $$""");
    }

    @AfterAll
    void closeSession() {
        session.destroy();
    }

    @BeforeEach
    void forgetCommits() {
        jdbc.update("DELETE FROM claim_commits");
    }

    @Test
    void aClaimFromOneQueueInATransactionOfItsOwnCommitsWithoutWaitingForTheFlush() {
        recordClaims(enqueue("commit-one"));

        assertThat(sessionStore.fetch(List.of("commit-one"), 1, "w", null)).hasSize(1);

        assertThat(recorded()).containsExactly("off");
        // only the claim's transaction: the session's next one waits for the flush again
        assertThat(sessionJdbc.queryForObject("SELECT current_setting('synchronous_commit')", String.class))
                .isEqualTo("on");
    }

    @Test
    void aClaimFromSeveralQueuesInATransactionOfItsOwnCommitsWithoutWaitingForTheFlush() {
        recordClaims(enqueue("commit-many-a"));
        recordClaims(enqueue("commit-many-b"));

        assertThat(sessionStore.fetch(List.of("commit-many-a", "commit-many-b"), 2, "w", null)).hasSize(2);

        assertThat(recorded()).containsExactly("off", "off");
        assertThat(sessionJdbc.queryForObject("SELECT current_setting('synchronous_commit')", String.class))
                .isEqualTo("on");
    }

    @Test
    void aClaimInsideACallersTransactionLeavesItsCommitWaitingForTheFlush() {
        recordClaims(enqueue("commit-caller-a"));
        recordClaims(enqueue("commit-caller-b"));

        String after = transaction.execute(status -> {
            sessionStore.enqueue(NewJob.builder("test.caller").queue("commit-caller-a").build());
            assertThat(sessionStore.fetch(List.of("commit-caller-a"), 1, "w", null)).hasSize(1);
            assertThat(sessionStore.fetch(List.of("commit-caller-a", "commit-caller-b"), 2, "w", null)).hasSize(2);
            return sessionJdbc.queryForObject("SELECT current_setting('synchronous_commit')", String.class);
        });

        assertThat(after).isEqualTo("on");
        assertThat(recorded()).containsExactly("on", "on", "on");
    }

    private String enqueue(String queue) {
        store.enqueue(NewJob.builder("test.claim").queue(queue).build());
        return queue;
    }

    /** Records the {@code synchronous_commit} of every claim from the queue (its only update of several jobs). */
    private void recordClaims(String queue) {
        jdbc.execute("CREATE TRIGGER record_claim_commit AFTER UPDATE ON \"s3q_" + queue + "\".jobs"
                + " FOR EACH STATEMENT EXECUTE FUNCTION record_claim_commit()");
    }

    private List<String> recorded() {
        return jdbc.queryForList("SELECT synchronous_commit FROM claim_commits", String.class);
    }
}
