package io.pgvs3.bench.baseline;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.List;

import io.pgvs3.bench.BenchDatabase;
import io.pgvs3.bench.Load;
import io.pgvs3.bench.Payloads;

/**
 * The job queue users write themselves: one table, workers claim the oldest rows with
 * {@code FOR UPDATE SKIP LOCKED} inside a transaction, run the (empty) handler, and {@code DELETE} the rows before
 * committing.
 */
public final class SkipLockedQueue {

    public static final String TABLE = "bench_skip_jobs";

    private static final String DDL = """
            CREATE TABLE IF NOT EXISTS bench_skip_jobs (
                id         bigserial PRIMARY KEY,
                queue      text NOT NULL,
                type       text NOT NULL,
                payload    jsonb NOT NULL,
                attempts   int NOT NULL DEFAULT 0,
                created_at timestamptz NOT NULL DEFAULT now()
            )""";

    private static final String INDEX = "CREATE INDEX IF NOT EXISTS bench_skip_jobs_queue_id ON bench_skip_jobs (queue, id)";

    private static final String ENQUEUE_MANY = """
            INSERT INTO bench_skip_jobs (queue, type, payload)
            SELECT ?, ?, payload::jsonb FROM unnest(?::text[]) AS m(payload)""";

    private static final String ENQUEUE_ONE = "INSERT INTO bench_skip_jobs (queue, type, payload) VALUES (?, ?, ?::jsonb)";

    private static final String CLAIM = """
            SELECT id, type, payload FROM bench_skip_jobs WHERE queue = ?
            ORDER BY id LIMIT ? FOR UPDATE SKIP LOCKED""";

    private static final String COMPLETE = "DELETE FROM bench_skip_jobs WHERE id = ANY(?)";

    private static final String QUEUE = "default";

    private SkipLockedQueue() {
    }

    public static void create(BenchDatabase database) {
        database.execute(DDL, INDEX);
    }

    public static void fill(BenchDatabase database, int jobs) throws Exception {
        try (Connection connection = database.connect(false);
                PreparedStatement insert = connection.prepareStatement(ENQUEUE_MANY)) {
            for (int done = 0; done < jobs; done += 1000) {
                int rows = Math.min(1000, jobs - done);
                String[] payloads = new String[rows];
                for (int i = 0; i < rows; i++) {
                    payloads[i] = Payloads.json();
                }
                insert.setString(1, QUEUE);
                insert.setString(2, Payloads.TYPE);
                insert.setArray(3, connection.createArrayOf("text", payloads));
                insert.executeUpdate();
            }
        }
        database.execute("VACUUM ANALYZE bench_skip_jobs");
    }

    /** Enqueues one job per step, each in its own transaction. */
    public static Load.Worker producer(BenchDatabase database, boolean synchronousCommit) throws Exception {
        Connection connection = database.connect(synchronousCommit);
        PreparedStatement insert = connection.prepareStatement(ENQUEUE_ONE);
        return new Load.Worker() {
            @Override
            public long step() throws Exception {
                insert.setString(1, QUEUE);
                insert.setString(2, Payloads.TYPE);
                insert.setString(3, Payloads.json());
                return insert.executeUpdate();
            }

            @Override
            public void close() throws Exception {
                connection.close();
            }
        };
    }

    /** Claims up to {@code count} jobs, completes them by DELETE and commits, per step. */
    public static Load.Worker worker(BenchDatabase database, boolean synchronousCommit, int count) throws Exception {
        Connection connection = database.connect(synchronousCommit);
        connection.setAutoCommit(false);
        PreparedStatement claim = connection.prepareStatement(CLAIM);
        PreparedStatement complete = connection.prepareStatement(COMPLETE);
        return new Load.Worker() {
            @Override
            public long step() throws Exception {
                claim.setString(1, QUEUE);
                claim.setInt(2, count);
                List<Long> ids = new ArrayList<>(count);
                try (ResultSet rows = claim.executeQuery()) {
                    while (rows.next()) {
                        ids.add(rows.getLong(1));
                        rows.getString(3);
                    }
                }
                if (ids.isEmpty()) {
                    connection.commit();
                    return 0;
                }
                Array array = connection.createArrayOf("bigint", ids.toArray());
                complete.setArray(1, array);
                int deleted = complete.executeUpdate();
                connection.commit();
                return deleted;
            }

            @Override
            public void close() throws Exception {
                connection.close();
            }
        };
    }
}
