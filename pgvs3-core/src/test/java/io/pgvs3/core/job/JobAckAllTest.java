package io.pgvs3.core.job;

import java.time.Duration;
import java.util.List;
import java.util.UUID;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class JobAckAllTest extends JobStoreTestSupport {

    @Test
    void completesTheActiveJobsOfTheWorkerAndReportsEveryOtherOneInOrder() {
        List<Job> mine = List.of(enqueue(), enqueue());
        Job theirs = enqueue();
        Job waiting = enqueue();
        assertThat(store.fetch(List.of("ack-all"), 2, "me", Duration.ofMinutes(1))).extracting(Job::id)
                .containsExactlyElementsOf(mine.stream().map(Job::id).toList());
        assertThat(store.fetch(List.of("ack-all"), 1, "them", Duration.ofMinutes(1))).extracting(Job::id)
                .containsExactly(theirs.id());
        String unknown = UUID.randomUUID().toString();

        List<AckResult> results = store.ackAll(List.of(
                new JobCompletion(mine.get(0).id(), "me", "{\"n\":1}"),
                new JobCompletion(theirs.id(), "me", null),
                new JobCompletion(unknown, "me", null),
                new JobCompletion("not-a-job-id", "me", null),
                new JobCompletion(waiting.id(), "me", null),
                new JobCompletion(mine.get(1).id(), "me", null)));

        assertThat(results).extracting(AckResult::jobId).containsExactly(mine.get(0).id(), theirs.id(), unknown,
                "not-a-job-id", waiting.id(), mine.get(1).id());
        assertThat(results).extracting(AckResult::acknowledged).containsExactly(true, false, false, false, false, true);
        assertThat(store.get(mine.get(0).id())).map(Job::state).contains(JobState.COMPLETED);
        assertThat(store.get(mine.get(0).id())).map(Job::resultJson).contains("{\"n\":1}");
        assertThat(results.get(1).job().state()).isEqualTo(JobState.ACTIVE);
        assertThat(results.get(2).job()).isNull();
        assertThat(results.get(3).job()).isNull();
        assertThat(results.get(4).job().state()).isEqualTo(JobState.AVAILABLE);
        assertThat(store.get(theirs.id())).map(Job::state).contains(JobState.ACTIVE);
        assertThat(store.ackAll(List.of())).isEmpty();
    }

    @Test
    void completesByTheGivenQueueAloneAndAnswersAJobOfAnotherQueueAsMissing() {
        Job mine = store.enqueue(NewJob.builder("test.ack-all").queue("ack-queue").build());
        Job waiting = store.enqueue(NewJob.builder("test.ack-all").queue("ack-queue").build());
        Job elsewhere = store.enqueue(NewJob.builder("test.ack-all").queue("ack-elsewhere").build());
        assertThat(store.fetch(List.of("ack-queue"), 1, "me", Duration.ofMinutes(1))).extracting(Job::id)
                .containsExactly(mine.id());
        assertThat(store.fetch(List.of("ack-elsewhere"), 1, "me", Duration.ofMinutes(1))).extracting(Job::id)
                .containsExactly(elsewhere.id());

        List<AckResult> results = store.ackAll("ack-queue", List.of(
                new JobCompletion(elsewhere.id(), "me", null),
                new JobCompletion(waiting.id(), "me", null),
                new JobCompletion(mine.id(), "me", "{\"n\":2}")));

        assertThat(results).extracting(AckResult::acknowledged).containsExactly(false, false, true);
        assertThat(results.get(0).job()).isNull();
        assertThat(results.get(1).job().state()).isEqualTo(JobState.AVAILABLE);
        assertThat(store.get(mine.id())).map(Job::resultJson).contains("{\"n\":2}");
        assertThat(store.get(elsewhere.id())).map(Job::state).contains(JobState.ACTIVE);
        assertThat(events.events(java.util.Set.of("job.completed"), java.util.Set.of("ack-queue"), 0, 10))
                .extracting(JobEvent::jobId).containsExactly(mine.id());
    }

    private Job enqueue() {
        return store.enqueue(NewJob.builder("test.ack-all").queue("ack-all").build());
    }
}
