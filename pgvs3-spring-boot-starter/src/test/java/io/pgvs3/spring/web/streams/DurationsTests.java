package io.pgvs3.spring.web.streams;

import java.time.Duration;

import io.pgvs3.core.error.ErrorCode;
import io.pgvs3.core.error.Pgvs3Exception;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class DurationsTests {

    private final JsonMapper mapper = new JsonMapper();

    @Test
    void readsUnitsCombinationsAndIso8601() {
        assertThat(Durations.parse("500ms", "f")).isEqualTo(Duration.ofMillis(500));
        assertThat(Durations.parse("30s", "f")).isEqualTo(Duration.ofSeconds(30));
        assertThat(Durations.parse("720h", "f")).isEqualTo(Duration.ofHours(720));
        assertThat(Durations.parse("7d", "f")).isEqualTo(Duration.ofDays(7));
        assertThat(Durations.parse(" 1h30m ", "f")).isEqualTo(Duration.ofMinutes(90));
        assertThat(Durations.parse("PT5S", "f")).isEqualTo(Duration.ofSeconds(5));
        assertThat(Durations.parse("p7d", "f")).isEqualTo(Duration.ofDays(7));
    }

    @ParameterizedTest
    @ValueSource(strings = { "5", "5x", "h", "-5s", "1.5s", "PT", "99999999999999999999d" })
    void refusesWhatIsNotADurationNamingTheField(String text) {
        assertThatThrownBy(() -> Durations.parse(text, "retention")).isInstanceOfSatisfying(Pgvs3Exception.class,
                ex -> {
                    assertThat(ex.code()).isEqualTo(ErrorCode.INVALID_REQUEST);
                    assertThat(ex.getMessage()).contains("'retention'");
                    assertThat(ex.details()).containsEntry("field", "retention");
                });
    }

    @Test
    void refusesABlankDuration() {
        assertThatThrownBy(() -> Durations.parse(" ", "ttl")).isInstanceOf(Pgvs3Exception.class)
                .hasMessageContaining("'ttl' must be a duration");
    }

    @Test
    void aBodyFieldIsAStringOrMillisecondsAndNeverNegative() {
        assertThat(Durations.optional(mapper.readTree("{}"), "ttl")).isNull();
        assertThat(Durations.optional(mapper.readTree("{\"ttl\":null}"), "ttl")).isNull();
        assertThat(Durations.optional(mapper.readTree("{\"ttl\":\"2m\"}"), "ttl")).isEqualTo(Duration.ofMinutes(2));
        assertThat(Durations.optional(mapper.readTree("{\"ttl\":1500}"), "ttl")).isEqualTo(Duration.ofMillis(1500));
        assertThatThrownBy(() -> Durations.optional(mapper.readTree("{\"ttl\":-1}"), "ttl"))
                .isInstanceOf(Pgvs3Exception.class).hasMessage("'ttl' must not be negative");
        assertThatThrownBy(() -> Durations.optional(mapper.readTree("{\"ttl\":1.5}"), "ttl"))
                .isInstanceOf(Pgvs3Exception.class).hasMessage("'ttl' must be a duration string or milliseconds");
        assertThatThrownBy(() -> Durations.optional(mapper.readTree("{\"ttl\":true}"), "ttl"))
                .isInstanceOf(Pgvs3Exception.class);
    }
}
