package io.pgvs3.core.job;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.pgvs3.core.UuidV7;
import io.pgvs3.core.error.ErrorCode;
import io.pgvs3.core.error.Pgvs3Exception;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * An enqueue builds the envelopes of the jobs it created instead of reading them back: they must be the envelopes
 * a read of the job answers right after, field by field, in the same key order and with the same number types.
 */
class JobEnqueueEnvelopeTest extends JobStoreTestSupport {

    private static final String TRICKY_ARGS = "[1e2, 1.50e1, -0.0, 0.10, 1.5E-3, 12345678901234567890123, 2147483648,"
            + " -7, true, null, \"é\\u00e9\\n\", {\"b\": 1, \"a\": 2, \"aa\": 3, \"é\": 4, \"z\": [], \"a\": 5},"
            + " [[], {}], 1e400]";

    @Test
    void everyOptionGivesTheEnvelopeAReadAnswers() {
        List<NewJob> jobs = jobsWithEveryOption();

        List<Job> enqueued = store.enqueueBatch(jobs);

        assertThat(enqueued).hasSize(jobs.size());
        for (Job job : enqueued) {
            assertSameAsRead(job);
        }
        assertThat(enqueued.get(1).state()).isEqualTo(JobState.SCHEDULED);
        assertThat(enqueued.get(1).envelope().has("scheduled_at")).isTrue();
        assertThat(enqueued.get(2).state()).isEqualTo(JobState.AVAILABLE);
        assertThat(enqueued.get(2).envelope().has("scheduled_at")).isFalse();
        assertThat(enqueued.get(3).envelope().get("tags").isNull()).isTrue();
    }

    @Test
    void everyOptionOfAJobEnqueuedAloneGivesTheEnvelopeAReadAnswers() {
        List<Job> enqueued = jobsWithEveryOption().stream().map(store::enqueue).toList();

        enqueued.forEach(this::assertSameAsRead);
        assertThat(enqueued.get(1).state()).isEqualTo(JobState.SCHEDULED);
        assertThat(enqueued.get(1).envelope().has("scheduled_at")).isTrue();
        assertThat(enqueued.get(2).state()).isEqualTo(JobState.AVAILABLE);
        assertThat(enqueued.get(2).envelope().has("scheduled_at")).isFalse();
        assertThat(enqueued.get(3).envelope().get("tags").isNull()).isTrue();
    }

    /** Jobs with every option between them; a new list (with a new client-chosen id) on every call. */
    private static List<NewJob> jobsWithEveryOption() {
        RetryPolicy retry = new RetryPolicy(5, Duration.ofMillis(1500), 1.5, Duration.ofMinutes(2), false, "linear",
                List.of("validation.*", "fatal"), RetryPolicy.DEAD_LETTER);
        return List.of(
                NewJob.builder("envelope.minimal").build(),
                NewJob.builder("envelope.full").id(UuidV7.generate().toString()).queue("envelopes").priority(7)
                        .args("[\"ada@example.com\", {\"n\": 1}]")
                        .meta("{\"trace_id\": \"t-1\", \"nested\": {\"y\": 1, \"x\": 2.50}}")
                        .scheduledAt(Instant.now().plusSeconds(3600).plusNanos(123_456_789))
                        .expiresAt(Instant.parse("2099-01-01T00:00:00Z"))
                        .timeout(Duration.ofSeconds(30)).visibilityTimeout(Duration.ofMillis(45_500))
                        .retry(retry)
                        .options("{\"queue\": \"envelopes\", \"tags\": [\"a\", \"b\"], \"metadata\": {\"k\": 1e1},"
                                + " \"priority\": 7}")
                        .extra("{\"x_custom_field\": {\"deep\": [1, 2.0]}, \"x_other\": \"v\", \"timeout_ms\": 9,"
                                + " \"state\": \"ignored\", \"args\": \"ignored\"}")
                        .build(),
                NewJob.builder("envelope.due").queue("envelopes").scheduledAt(Instant.parse("2020-01-01T00:00:00.000001Z"))
                        .expiresAt(Instant.now().plusSeconds(60)).build(),
                NewJob.builder("envelope.tricky").args(TRICKY_ARGS).meta("{\"é\": 1e-2, \"k\": {\"é\": 0, \"b\": -0.0}}")
                        .options("{\"tags\": null}").extra("{\"zz\": 1.0e0, \"é\": null}").build(),
                NewJob.builder("envelope.rounded").visibilityTimeout(Duration.ofDays(36_500))
                        .scheduledAt(Instant.parse("2098-06-01T12:00:00Z")).retry(RetryPolicy.DEFAULT.withMaxAttempts(1))
                        .build());
    }

    /**
     * A job read from a request brings the trees its text was written from; the enqueue builds its envelope from them
     * instead of parsing the text again, and must still answer what a read answers, on both paths, whether the
     * request's numbers were read as doubles or as exact decimals.
     */
    @ParameterizedTest(name = "floats as BigDecimal: {0}")
    @ValueSource(booleans = { false, true })
    void aJobReadFromARequestGivesTheEnvelopeAReadAnswers(boolean exactDecimals) {
        JsonMapper mapper = JsonMapper.builder()
                .configure(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS, exactDecimals).build();
        String body = "{\"type\": \"envelope.request\", \"queue\": \"envelopes-request\", \"args\": "
                + TRICKY_ARGS.replace(", 1e400", ", 1e20, 1.0E-7")
                + ", \"meta\": {\"é\": 1e-2, \"k\": {\"é\": 0, \"b\": -0.0}, \"a\": 2.50},"
                + " \"options\": {\"tags\": [\"t\", 1.0], \"priority\": 3},"
                + " \"x_custom\": {\"zz\": 1.0e0, \"é\": null, \"b\": [1, 2.0]}, \"state\": \"ignored\"}";
        NewJob job = JobRequests.parse(mapper.readTree(body));
        assertThat(job.parsed()).isNotNull();

        assertSameAsRead(store.enqueue(job));
        store.enqueueBatch(List.of(job, JobRequests.parse(mapper.readTree(body)))).forEach(this::assertSameAsRead);
        Job unique = store.enqueue(NewJob.builder(job.type()).queue(job.queue().value()).parsed(job.parsed().args(),
                job.parsed().meta(), job.parsed().options(), job.parsed().extra())
                .unique(new UniqueOptions(null, null, null, "request-" + UuidV7.generate(), null, null, null)).build());
        assertSameAsRead(unique);
        Job plain = store.enqueue(job);
        for (String field : List.of("args", "meta", "tags", "x_custom")) {
            assertThat(unique.envelope().get(field).toString()).as(field)
                    .isEqualTo(plain.envelope().get(field).toString());
        }
    }

    @Test
    void aNumberBeyondWhatJsonbHoldsInARequestIsRejectedOnBothPaths() {
        ObjectNode exact = JsonNodeFactory.instance.objectNode();
        exact.put("type", "envelope.huge").put("queue", "envelopes-huge-request").putArray("args")
                .add(new java.math.BigDecimal("1e999999999"));
        ObjectNode infinite = exact.deepCopy();
        infinite.putArray("args").add(1.0).addObject().put("x", Double.POSITIVE_INFINITY);
        for (ObjectNode body : List.of(exact, infinite)) {
            NewJob job = JobRequests.parse(body);
            assertThatThrownBy(() -> store.enqueue(job)).isInstanceOfSatisfying(Pgvs3Exception.class,
                    ex -> assertThat(ex.code()).isEqualTo(ErrorCode.INVALID_REQUEST)).hasMessageContaining("'args'");
            NewJob unique = NewJob.builder(job.type()).queue(job.queue().value())
                    .parsed(job.parsed().args(), null, null, null)
                    .unique(new UniqueOptions(null, null, null, "huge-" + UuidV7.generate(), null, null, null)).build();
            assertThatThrownBy(() -> store.enqueue(unique)).isInstanceOfSatisfying(Pgvs3Exception.class,
                    ex -> assertThat(ex.code()).isEqualTo(ErrorCode.INVALID_REQUEST)).hasMessageContaining("'args'");
        }
        assertThat(jdbc.queryForObject("SELECT count(*) FROM s3p.job_locations() WHERE queue = 'envelopes-huge-request'",
                Long.class)).isZero();
    }

    @Test
    void theJobsABatchAnswersAreTheJobsAsEnqueuedWhenReadLater() {
        List<Job> enqueued = store.enqueueBatch(List.of(NewJob.builder("envelope.later").queue("envelopes-later").build(),
                NewJob.builder("envelope.later").queue("envelopes-later").build()));
        assertThat(store.fetch(List.of("envelopes-later"), 10, "w", null)).hasSize(2);

        assertThat(enqueued).extracting(Job::state).containsExactly(JobState.AVAILABLE, JobState.AVAILABLE);
        assertThat(enqueued).extracting(Job::attempt).containsExactly(0, 0);
        assertThat(enqueued.get(1)).isSameAs(enqueued.get(1));
    }

    @Test
    void oneJobAndJobsInACallersTransactionGiveTheEnvelopeAReadAnswers() {
        assertSameAsRead(store.enqueue(NewJob.builder("envelope.single").args(TRICKY_ARGS).build()));
        TransactionTemplate transaction = new TransactionTemplate(new DataSourceTransactionManager(dataSource));
        List<Job> enqueued = transaction.execute(status -> store.enqueueBatch(List.of(
                NewJob.builder("envelope.tx").queue("envelopes-a").build(),
                NewJob.builder("envelope.tx").queue("envelopes-b").meta("{\"m\": 1}").build())));
        enqueued.forEach(this::assertSameAsRead);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = { "[1e999999999]", "[1e-999999999]", "[-1e131073]" })
    void aNumberBeyondWhatJsonbHoldsIsRejected(String args) {
        assertThatThrownBy(() -> store.enqueue(NewJob.builder("envelope.huge").queue("envelopes-huge").args(args)
                .build())).isInstanceOfSatisfying(Pgvs3Exception.class,
                        ex -> assertThat(ex.code()).isEqualTo(ErrorCode.INVALID_REQUEST));
        assertThatThrownBy(() -> store.enqueue(NewJob.builder("envelope.huge").queue("envelopes-huge").args(args)
                .unique(new UniqueOptions(null, null, null, "huge-" + UuidV7.generate(), null, null, null)).build()))
                .isInstanceOfSatisfying(Pgvs3Exception.class,
                        ex -> assertThat(ex.code()).isEqualTo(ErrorCode.INVALID_REQUEST));
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = { "[1, 2", "[1] [2]", "", "[1, {\"a\": }]", "{\"a\": 1}", "\"text\"", "7" })
    void argsThatAreNotOneJsonArrayAreRejectedAndNothingIsWritten(String args) {
        String message = args.startsWith("{") || args.startsWith("\"") || args.equals("7")
                ? "'args' must be an array" : "'args' is not valid JSON";
        assertThatThrownBy(() -> store.enqueueBatch(List.of(
                NewJob.builder("envelope.ok").queue("envelopes-bad-args").build(),
                NewJob.builder("envelope.bad").queue("envelopes-bad-args").args(args).build())))
                .isInstanceOfSatisfying(Pgvs3Exception.class,
                        ex -> assertThat(ex.code()).isEqualTo(ErrorCode.INVALID_REQUEST))
                .hasMessageContaining(message);
        assertThatThrownBy(() -> store.enqueue(NewJob.builder("envelope.bad").queue("envelopes-bad-args").args(args)
                .build())).isInstanceOf(Pgvs3Exception.class).hasMessageContaining(message);
        assertThat(jdbc.queryForObject("SELECT count(*) FROM s3p.job_locations() WHERE queue = 'envelopes-bad-args'",
                Long.class)).isZero();
    }

    @ParameterizedTest(name = "with a unique job in the batch: {0}")
    @ValueSource(booleans = { false, true })
    void aBatchWithAnIdThatExistsEnqueuesNone(boolean withUniqueJob) {
        String existing = store.enqueue(NewJob.builder("envelope.first").queue("envelopes-dup").build()).id();
        String fresh = UuidV7.generate().toString();
        List<NewJob> batch = new ArrayList<>();
        NewJob.Builder first = NewJob.builder("envelope.new").queue("envelopes-dup").id(fresh);
        if (withUniqueJob) {
            // a unique job takes the other enqueue path
            first.unique(new UniqueOptions(null, "dup-" + fresh, null, UniqueOptions.DEFAULT_STATES, "reject"));
        }
        batch.add(first.build());
        batch.add(NewJob.builder("envelope.again").queue("envelopes-dup").id(existing).build());

        assertThatThrownBy(() -> store.enqueueBatch(batch)).isInstanceOfSatisfying(Pgvs3Exception.class, ex -> {
            assertThat(ex.code()).isEqualTo(ErrorCode.DUPLICATE);
            assertThat(ex.details()).isEqualTo(Map.of("job_id", existing));
        });
        assertThat(store.get(fresh)).isEmpty();
        assertThat(store.get(existing).orElseThrow().type()).isEqualTo("envelope.first");
    }

    @Test
    void aRateLimitInTheOptionsSetsTheQueuesLimit() {
        store.enqueueBatch(List.of(
                NewJob.builder("envelope.limited").queue("envelopes-rate").options("{\"rate_limit\": {\"max_per_second\": 2}}").build(),
                NewJob.builder("envelope.limited").queue("envelopes-rate").options("{\"rate_limit\": {\"max_per_second\": 5.5}}").build()));

        assertThat(jdbc.queryForObject("SELECT rate_limit_per_second FROM \"s3q_envelopes-rate\".job_settings",
                Double.class)).isEqualTo(5.5);
    }

    private void assertSameAsRead(Job enqueued) {
        Job read = store.get(enqueued.id()).orElseThrow();
        List<String> names = new ArrayList<>(read.envelope().propertyNames());
        assertThat(enqueued.envelope().propertyNames()).containsExactlyElementsOf(names);
        for (String name : names) {
            JsonNode expected = read.envelope().get(name);
            assertThat(enqueued.envelope().get(name)).as("field %s of job %s", name, enqueued.type())
                    .isEqualTo(expected);
            assertThat(enqueued.envelope().get(name).toString()).as("field %s of job %s", name, enqueued.type())
                    .isEqualTo(expected.toString());
        }
        assertThat(enqueued.envelope().toString()).isEqualTo(read.envelope().toString());
        assertThat(enqueued).isEqualTo(read);
    }
}
