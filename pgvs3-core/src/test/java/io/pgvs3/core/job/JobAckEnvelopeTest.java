package io.pgvs3.core.job;

import java.time.Duration;
import java.util.List;

import io.pgvs3.core.error.Pgvs3Exception;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * An ack of a job fetched here runs its queue's {@code ack_rows} and builds the completed job's envelope from the
 * row on the client; it must be the envelope the queue's SQL function builds for that row, key order included, and
 * the same as an ack through {@code s3p.ack_jobs} answers.
 */
class JobAckEnvelopeTest extends JobStoreTestSupport {

    private static final String QUEUE = "ack-envelope";

    private final JsonMapper mapper = JsonMapper.builder().build();

    @Test
    void anAckedJobHasTheEnvelopeTheDatabaseBuildsForIt() {
        store.enqueue(NewJob.builder("plain.job").queue(QUEUE).build());
        store.enqueue(richJob(QUEUE));
        store.enqueue(NewJob.builder("low.job").queue(QUEUE).priority(-5).build());
        // the rich job failed once and is available again: error, errors from its first attempt
        store.nack(store.fetch(List.of(QUEUE), 1, "w", null).get(0).id(), "w", null, true);
        List<Job> fetched = store.fetch(List.of(QUEUE), 10, "w", Duration.ofMinutes(1));
        assertThat(fetched).extracting(Job::type).containsExactly("rich.job", "plain.job", "low.job");
        assertThat(fetched.get(0).errors()).hasSize(1);

        for (Job job : fetched) {
            String result = job.type().equals("plain.job") ? null : "{\"ok\": [1, 2.50, \"ü\"]}";
            Job acked = store.ack(job.id(), "w", result);
            assertThat(acked.state()).isEqualTo(JobState.COMPLETED);
            assertThat(json(acked.envelope())).as(job.type()).isEqualTo(json(sqlEnvelope(job.id())));
            assertThat(acked.startedAt()).isEqualTo(job.startedAt());
            assertThat(acked.completedAt()).isNotNull();
        }
    }

    @Test
    void anAckThatDoesNotApplyAnswersTheJobAsItIsEitherWay() {
        store.enqueue(NewJob.builder("leased.job").queue(QUEUE).build());
        Job job = store.fetch(List.of(QUEUE), 1, "owner", null).get(0);

        // the queue's ack_rows answers the job as it is, still leased to its owner
        assertThatThrownBy(() -> store.ack(job.id(), "intruder", null))
                .isInstanceOfSatisfying(Pgvs3Exception.class,
                        ex -> assertThat(ex.getMessage()).contains("is leased to another worker than intruder"));
        List<AckResult> direct = store.ackAll(QUEUE, List.of(new JobCompletion(job.id(), "intruder", null)));
        List<AckResult> located = store.ackAll(List.of(new JobCompletion(job.id(), "intruder", null)));
        assertThat(direct.get(0).acknowledged()).isFalse();
        assertThat(json(direct.get(0).job().envelope())).isEqualTo(json(sqlEnvelope(job.id())));
        assertThat(json(direct.get(0).job().envelope())).isEqualTo(json(located.get(0).job().envelope()));

        // completed jobs are not read back by ackAll, on either path
        assertThat(store.ackAll(QUEUE, List.of(new JobCompletion(job.id(), "owner", null))))
                .singleElement().satisfies(r -> {
                    assertThat(r.acknowledged()).isTrue();
                    assertThat(r.job()).isNull();
                });
        Job again = store.ackAll(QUEUE, List.of(new JobCompletion(job.id(), "owner", null))).get(0).job();
        assertThat(again.state()).isEqualTo(JobState.COMPLETED);
        assertThat(json(again.envelope())).isEqualTo(json(sqlEnvelope(job.id())));
    }

    private JsonNode sqlEnvelope(String id) {
        return mapper.readTree(sqlEnvelope(QUEUE, id));
    }

    private String json(JsonNode node) {
        return mapper.writeValueAsString(node);
    }
}
