package io.pgvs3.spring.web;

import java.math.BigDecimal;

import io.pgvs3.core.error.ErrorCode;
import io.pgvs3.core.error.Pgvs3Exception;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.JsonNodeFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatNoException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The request checks of the web package that do not depend on the job format. */
class RequestParsingTests {

    private final JsonMapper mapper = new JsonMapper();

    @Test
    void acceptHeaderAllowsJsonOnly() {
        assertThat(AcceptHeader.allowsJson(null)).isTrue();
        assertThat(AcceptHeader.allowsJson("")).isTrue();
        assertThat(AcceptHeader.allowsJson("*/*")).isTrue();
        assertThat(AcceptHeader.allowsJson("application/json")).isTrue();
        assertThat(AcceptHeader.allowsJson("application/openjobspec+json")).isTrue();
        assertThat(AcceptHeader.allowsJson("text/html, application/*;q=0.5")).isTrue();
        assertThat(AcceptHeader.allowsJson("text/html")).isFalse();
        assertThat(AcceptHeader.allowsJson("application/json;q=0")).isFalse();
        assertThat(AcceptHeader.allowsJson("not a media type")).isFalse();
    }

    @Test
    void paginationChecksLimitAndOffsetAndDescribesThePage() {
        assertThatNoException().isThrownBy(() -> Pagination.check(1, 0, 100));
        assertThatNoException().isThrownBy(() -> Pagination.check(100, 5, 100));
        assertThatThrownBy(() -> Pagination.check(0, 0, 100)).isInstanceOf(Pgvs3Exception.class)
                .hasMessage("limit must be between 1 and 100");
        assertThatThrownBy(() -> Pagination.checkLimit(101, 100)).isInstanceOf(Pgvs3Exception.class);
        assertThatThrownBy(() -> Pagination.check(10, -1, 100)).isInstanceOf(Pgvs3Exception.class)
                .hasMessage("offset must not be negative");
        assertThat(Pagination.view(25, 10, 10, 10)).containsExactly(java.util.Map.entry("total", 25L),
                java.util.Map.entry("limit", 10), java.util.Map.entry("offset", 10),
                java.util.Map.entry("has_more", true));
        assertThat(Pagination.view(25, 10, 20, 5)).containsEntry("has_more", false);
    }

    @Test
    void jsonBodyGuardAcceptsOrdinaryBodies() {
        assertThatNoException().isThrownBy(() -> JsonBodyGuard.check(
                mapper.readTree("{\"a\":[1,2.5,\"x\",{\"b\":null}],\"c\":true}"), "$", 0));
    }

    @Test
    void jsonBodyGuardRefusesUnstorableTextNamingWhere() {
        assertRefused(mapper.readTree("{\"a\":[\"ok\",\"bad\\u0000\"]}"), "$.a[1]");
        assertRefused(mapper.readTree("{\"k\\u0000\":1}"), "$");
        assertRefused(mapper.readTree("{\"s\":\"\\ud800\"}"), "$.s");
    }

    @Test
    void jsonBodyGuardRefusesDeepNestingAndOutOfRangeNumbers() {
        JsonNode deep = mapper.readTree("[".repeat(JsonBodyGuard.MAX_DEPTH + 2) + "]".repeat(JsonBodyGuard.MAX_DEPTH + 2));
        assertThatThrownBy(() -> JsonBodyGuard.check(deep, "$", 0)).isInstanceOf(Pgvs3Exception.class)
                .hasMessageContaining("nests deeper than " + JsonBodyGuard.MAX_DEPTH);
        JsonNode huge = JsonNodeFactory.instance.objectNode().put("n", new BigDecimal("1e400"));
        assertRefused(huge, "$.n");
        JsonNode infinite = JsonNodeFactory.instance.objectNode().put("n", Double.POSITIVE_INFINITY);
        assertRefused(infinite, "$.n");
    }

    private static void assertRefused(JsonNode body, String field) {
        assertThatThrownBy(() -> JsonBodyGuard.check(body, "$", 0)).isInstanceOfSatisfying(Pgvs3Exception.class,
                ex -> {
                    assertThat(ex.code()).isEqualTo(ErrorCode.INVALID_PAYLOAD);
                    assertThat(ex.details().get("field")).asString().isEqualTo(field.replace('\u0000', '?'));
                });
    }
}
