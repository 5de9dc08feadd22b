package io.pgvs3.spring.template;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;

import io.pgvs3.core.job.UniqueOptions;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class JobOptionsTests {

    private static final UniqueOptions UNIQUE = new UniqueOptions(null, null, null, "k", null, null, "reject");

    private static final JobOptions.Retry RETRY = new JobOptions.Retry(7, Duration.ofSeconds(2), 3.0,
            Duration.ofMinutes(1));

    @Test
    void defaultsLeaveEverythingUnset() {
        JobOptions options = JobOptions.defaults();
        assertThat(options.queue()).isNull();
        assertThat(options.priority()).isNull();
        assertThat(options.delay()).isNull();
        assertThat(options.scheduledAt()).isNull();
        assertThat(options.id()).isNull();
        assertThat(options.maxAttempts()).isNull();
        assertThat(options.retry()).isNull();
        assertThat(options.unique()).isNull();
        assertThat(options.meta()).isEmpty();
    }

    @Test
    void eachOptionKeepsTheOthers() {
        JobOptions options = JobOptions.queue("emails").priority(5).delay(Duration.ofMinutes(1)).id("id-1")
                .retry(RETRY).unique(UNIQUE).meta("a", 1).meta("b", "two");
        assertThat(options.queue()).isEqualTo("emails");
        assertThat(options.priority()).isEqualTo(5);
        assertThat(options.delay()).isEqualTo(Duration.ofMinutes(1));
        assertThat(options.scheduledAt()).isNull();
        assertThat(options.id()).isEqualTo("id-1");
        assertThat(options.maxAttempts()).isEqualTo(7);
        assertThat(options.retry()).isEqualTo(RETRY);
        assertThat(options.unique()).isEqualTo(UNIQUE);
        assertThat(options.meta()).containsExactlyInAnyOrderEntriesOf(Map.of("a", 1, "b", "two"));

        JobOptions moved = options.onQueue("reports").maxAttempts(3);
        assertThat(moved.queue()).isEqualTo("reports");
        assertThat(moved.maxAttempts()).isEqualTo(3);
        assertThat(moved.retry()).isEqualTo(RETRY);
        assertThat(moved.priority()).isEqualTo(5);
        assertThat(moved.id()).isEqualTo("id-1");
        assertThat(moved.unique()).isEqualTo(UNIQUE);
        assertThat(moved.meta()).isEqualTo(options.meta());
    }

    @Test
    void aDelayAndATimeReplaceEachOther() {
        Instant time = Instant.parse("2030-01-01T00:00:00Z");
        JobOptions scheduled = JobOptions.defaults().delay(Duration.ofSeconds(5)).scheduledAt(time);
        assertThat(scheduled.scheduledAt()).isEqualTo(time);
        assertThat(scheduled.delay()).isNull();

        JobOptions delayed = scheduled.delay(Duration.ofSeconds(5));
        assertThat(delayed.delay()).isEqualTo(Duration.ofSeconds(5));
        assertThat(delayed.scheduledAt()).isNull();
    }

    @Test
    void everyMethodReturnsACopy() {
        JobOptions base = JobOptions.queue("emails");
        JobOptions changed = base.priority(1).meta("k", "v");
        assertThat(changed).isNotSameAs(base);
        assertThat(base.priority()).isNull();
        assertThat(base.meta()).isEmpty();
        assertThat(JobOptions.defaults().queue()).isNull();
    }
}
