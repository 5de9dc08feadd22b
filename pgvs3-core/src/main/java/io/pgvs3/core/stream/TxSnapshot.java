package io.pgvs3.core.stream;

import java.util.Arrays;

/**
 * The parts of a PostgreSQL {@code pg_snapshot} ({@code xmin:xmax:xip,...}) that tell whether any transaction
 * completed between two snapshots, without reading a table.
 */
record TxSnapshot(long xmax, long[] inProgress) {

    static TxSnapshot parse(String text) {
        String[] parts = text.split(":", -1);
        if (parts.length != 3) {
            throw new IllegalArgumentException("not a pg_snapshot: " + text);
        }
        long[] xip = parts[2].isEmpty() ? new long[0]
                : Arrays.stream(parts[2].split(",")).mapToLong(Long::parseLong).sorted().toArray();
        return new TxSnapshot(Long.parseLong(parts[1]), xip);
    }

    /**
     * Whether no transaction that {@code earlier} does not show as committed has completed by this snapshot:
     * xmax is one past the latest completed transaction, so it has not moved, and every transaction in progress
     * then still is. Transactions of every database count, so this is only a quick answer for quiet servers.
     */
    boolean nothingCompletedSince(TxSnapshot earlier) {
        if (xmax != earlier.xmax) {
            return false;
        }
        for (long xid : earlier.inProgress) {
            if (Arrays.binarySearch(inProgress, xid) < 0) {
                return false;
            }
        }
        return true;
    }
}
