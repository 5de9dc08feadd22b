package io.pgvs3.bench.baseline;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;

import io.pgvs3.bench.BenchDatabase;
import io.pgvs3.bench.Load;
import io.pgvs3.bench.Payloads;

/**
 * Plain tables written without pgvs3: the write limit (multi-row INSERT) and the commit limit (one row per
 * transaction) of the machine, for the same payloads pgvs3 writes.
 */
public final class RawTables {

    static final String EVENTS_DDL = """
            CREATE TABLE IF NOT EXISTS bench_events (
                seq        bigserial PRIMARY KEY,
                id         text NOT NULL,
                type       text NOT NULL,
                payload    jsonb NOT NULL,
                headers    jsonb,
                created_at timestamptz NOT NULL DEFAULT now()
            )""";

    static final String COMMITS_DDL = """
            CREATE TABLE IF NOT EXISTS bench_commits (
                seq        bigserial PRIMARY KEY,
                id         text NOT NULL,
                type       text NOT NULL,
                payload    jsonb NOT NULL,
                created_at timestamptz NOT NULL DEFAULT now()
            )""";

    private static final String INSERT_MANY = """
            INSERT INTO bench_events (id, type, payload)
            SELECT id, ?, payload::jsonb FROM unnest(?::text[], ?::text[]) AS m(id, payload)""";

    private static final String INSERT_ONE = "INSERT INTO bench_commits (id, type, payload) VALUES (?, ?, ?::jsonb)";

    private static final String NOTIFY = "SELECT pg_notify('bench_commits', 'new')";

    private RawTables() {
    }

    public static void create(BenchDatabase database) {
        database.execute(EVENTS_DDL, COMMITS_DDL);
    }

    public static void truncate(BenchDatabase database) {
        database.execute("TRUNCATE bench_events, bench_commits");
    }

    /** One autocommitted multi-row INSERT of {@code rows} events per step. */
    public static Load.Worker multiRowInsert(BenchDatabase database, boolean synchronousCommit, int rows)
            throws Exception {
        Connection connection = database.connect(synchronousCommit);
        PreparedStatement insert = connection.prepareStatement(INSERT_MANY);
        return new Load.Worker() {
            @Override
            public long step() throws Exception {
                String[] ids = new String[rows];
                String[] payloads = new String[rows];
                for (int i = 0; i < rows; i++) {
                    ids[i] = Payloads.messageId();
                    payloads[i] = Payloads.json();
                }
                Array idArray = connection.createArrayOf("text", ids);
                Array payloadArray = connection.createArrayOf("text", payloads);
                insert.setString(1, Payloads.TYPE);
                insert.setArray(2, idArray);
                insert.setArray(3, payloadArray);
                return insert.executeUpdate();
            }

            @Override
            public void close() throws Exception {
                connection.close();
            }
        };
    }

    /** One single-row INSERT committed on its own per step. */
    public static Load.Worker singleRowCommit(BenchDatabase database, boolean synchronousCommit) throws Exception {
        return singleRowCommit(database, synchronousCommit, false);
    }

    /**
     * One single-row INSERT per transaction; with {@code notify} the transaction also calls {@code pg_notify}, as
     * queues do to wake their consumers. PostgreSQL serialises the commits of notifying transactions (a global lock
     * is held from the notification queue insert until the commit record is flushed), so this is the commit limit
     * of such a queue.
     */
    public static Load.Worker singleRowCommit(BenchDatabase database, boolean synchronousCommit, boolean notify)
            throws Exception {
        Connection connection = database.connect(synchronousCommit);
        connection.setAutoCommit(!notify);
        PreparedStatement insert = connection.prepareStatement(INSERT_ONE);
        PreparedStatement notification = connection.prepareStatement(NOTIFY);
        return new Load.Worker() {
            @Override
            public long step() throws Exception {
                insert.setString(1, Payloads.messageId());
                insert.setString(2, Payloads.TYPE);
                insert.setString(3, Payloads.json());
                int rows = insert.executeUpdate();
                if (notify) {
                    notification.execute();
                    connection.commit();
                }
                return rows;
            }

            @Override
            public void close() throws Exception {
                connection.close();
            }
        };
    }
}
