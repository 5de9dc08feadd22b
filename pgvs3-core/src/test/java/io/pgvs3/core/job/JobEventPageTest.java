package io.pgvs3.core.job;

import java.util.Set;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** Pages of the job event log: unfiltered by the cursor, filtered within a bounded stretch after it. */
class JobEventPageTest extends JobStoreTestSupport {

    @Test
    void aFilteredReadLooksAtABoundedStretchOfTheLogAndAnswersACursorPastIt() {
        long start = latestEventId();
        crowd("ev-crowd", JobEventLog.FILTER_SCAN + 10);
        Job rare = store.enqueue(NewJob.builder("test.rare").queue("ev-rare").build());
        long bound = jdbc.queryForObject("SELECT id FROM s3p.job_events WHERE id > ? ORDER BY id OFFSET ? LIMIT 1",
                Long.class, start, JobEventLog.FILTER_SCAN - 1);

        JobEventPage first = events.page(Set.of(), Set.of("ev-rare"), start, 10);
        assertThat(first.events()).isEmpty();
        assertThat(first.nextAfter()).isEqualTo(bound);

        JobEventPage second = events.page(Set.of(), Set.of("ev-rare"), first.nextAfter(), 10);
        assertThat(second.events()).extracting(JobEvent::jobId).containsExactly(rare.id());
        assertThat(second.nextAfter()).isEqualTo(second.events().get(0).id());

        JobEventPage caughtUp = events.page(Set.of(), Set.of("ev-rare"), second.nextAfter(), 10);
        assertThat(caughtUp.events()).isEmpty();
        assertThat(caughtUp.nextAfter()).isEqualTo(second.nextAfter());
    }

    @Test
    void aTypeThatNoEventHasIsReadThroughInBoundedStepsToTheEndOfTheLog() {
        long start = latestEventId();
        crowd("ev-types", 2 * JobEventLog.FILTER_SCAN + 1);

        JobEventPage first = events.page(Set.of("job.failed"), Set.of(), start, 100);
        JobEventPage second = events.page(Set.of("job.failed"), Set.of(), first.nextAfter(), 100);
        JobEventPage third = events.page(Set.of("job.failed"), Set.of(), second.nextAfter(), 100);

        assertThat(first.events()).isEmpty();
        assertThat(second.events()).isEmpty();
        assertThat(third.events()).isEmpty();
        assertThat(second.nextAfter() - first.nextAfter()).isEqualTo(JobEventLog.FILTER_SCAN);
        assertThat(third.nextAfter()).as("nothing after the cursor matched: read to the end")
                .isEqualTo(second.nextAfter());
    }

    @Test
    void aFilteredPageThatFillsUpEndsAtItsLastEventAndAnUnfilteredOneReadsOnlyItsLimit() {
        long start = latestEventId();
        crowd("ev-full", 5);
        crowd("ev-other", 5);

        JobEventPage filtered = events.page(Set.of("job.enqueued"), Set.of("ev-full"), start, 3);
        assertThat(filtered.events()).hasSize(3).extracting(JobEvent::queue).containsOnly("ev-full");
        assertThat(filtered.nextAfter()).isEqualTo(filtered.events().get(2).id());

        JobEventPage unfiltered = events.page(Set.of(), Set.of(), start, 7);
        assertThat(unfiltered.events()).hasSize(7);
        assertThat(unfiltered.nextAfter()).isEqualTo(unfiltered.events().get(6).id());
        assertThat(events.page(Set.of(), Set.of(), latestEventId(), 7).nextAfter()).isEqualTo(latestEventId());
    }

    /** Events of other jobs written straight into the log, as the queue's transitions would. */
    private void crowd(String queue, int count) {
        jdbc.update("INSERT INTO s3p.job_events (type, queue, job_id, data) "
                + "SELECT 'job.enqueued', ?, gen_random_uuid(), jsonb_build_object('queue', ?::text) "
                + "FROM generate_series(1, ?)", queue, queue, count);
    }

    private long latestEventId() {
        return jdbc.queryForObject("SELECT coalesce(max(id), 0) FROM s3p.job_events", Long.class);
    }
}
