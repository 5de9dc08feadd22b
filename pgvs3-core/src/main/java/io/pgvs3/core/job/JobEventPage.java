package io.pgvs3.core.job;

import java.util.List;

/**
 * A page of the job event log: its events, oldest first, and the cursor to read on from. The cursor can lie past the
 * last event when a filtered read stopped at its scan bound (see {@link JobEventLog#page}); the log is read to its
 * end once a page comes back empty with the cursor it was read from.
 */
public record JobEventPage(List<JobEvent> events, long nextAfter) {
}
