package io.pgvs3.spring.web;

import io.pgvs3.core.error.Pgvs3Exception;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.http.ResponseEntity;
import org.springframework.http.converter.HttpMessageNotWritableException;
import org.springframework.mock.web.MockHttpServletRequest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatNoException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The checks that run before a pgvs3 controller: Accept header, storable text, JSON shape; and the last resort. */
class HostileInputGuardsTests {

    private static final JsonMapper JSON = JsonMapper.builder().build();

    @Test
    void acceptHeadersThatAllowJsonAndThoseThatDoNot() {
        for (String allowed : new String[] { null, "", "*/*", "application/*", "application/json",
                "application/openjobspec+json", "application/*+json", "text/html, application/json;q=0.1",
                "application/json;charset=UTF-8" }) {
            assertThat(AcceptHeader.allowsJson(allowed)).as(allowed).isTrue();
        }
        for (String refused : new String[] { "application/xml", "text/html", "text/*", "application/json;q=0",
                "application/vnd.other+json", "not a type", "*/*;q=0" }) {
            assertThat(AcceptHeader.allowsJson(refused)).as(refused).isFalse();
        }
    }

    @Test
    void storableTextHasNoNulAndNoUnpairedSurrogate() {
        assertThat(StorableText.isStorable("plain, ü, 日本, \uD83D\uDE00")).isTrue();
        assertThat(StorableText.isStorable("a\u0000b")).isFalse();
        assertThat(StorableText.isStorable("\uD800")).isFalse();
        assertThat(StorableText.isStorable("x\uDC00")).isFalse();
        assertThat(StorableText.isStorable("\uD800x")).isFalse();
    }

    @Test
    void jsonBodiesAreWalkedToTheLastKeyAndValue() {
        assertThatNoException().isThrownBy(() -> JsonBodyGuard.check(JSON.readTree(
                "{\"a\":[1,2.5,\"x\",{\"b\":null}],\"big\":1e300,\"n\":-99999999999999999999}"), "$", 0));
        assertThatThrownBy(() -> JsonBodyGuard.check(JSON.readTree("{\"a\":{\"b\\u0000\":1}}"), "$", 0))
                .isInstanceOf(Pgvs3Exception.class).hasMessageContaining("$.a");
        assertThatThrownBy(() -> JsonBodyGuard.check(JSON.readTree("{\"a\":[\"ok\",\"\\ud800\"]}"), "$", 0))
                .isInstanceOf(Pgvs3Exception.class).hasMessageContaining("$.a[1]");
        String deep = "[".repeat(JsonBodyGuard.MAX_DEPTH + 1) + "1" + "]".repeat(JsonBodyGuard.MAX_DEPTH + 1);
        assertThatThrownBy(() -> JsonBodyGuard.check(JSON.readTree(deep), "$", 0)).isInstanceOf(Pgvs3Exception.class)
                .hasMessageContaining("deeper");
        String limit = "[".repeat(JsonBodyGuard.MAX_DEPTH) + "1" + "]".repeat(JsonBodyGuard.MAX_DEPTH);
        assertThatNoException().isThrownBy(() -> JsonBodyGuard.check(JSON.readTree(limit), "$", 0));
        assertThatThrownBy(() -> JsonBodyGuard.check(JSON.readTree("[1e999]"), "$", 0))
                .isInstanceOf(Pgvs3Exception.class).hasMessageContaining("out of range");
    }

    @Test
    void aValuePostgresqlRefusesIsA400WithoutTheDatabaseMessage() {
        java.sql.SQLException sql = new java.sql.SQLException("ERROR: invalid byte sequence for encoding \"UTF8\": 0x00",
                "22021");
        ResponseEntity<OjsErrorBody> response = new OjsExceptionHandler().dataAccess(
                new org.springframework.dao.DataIntegrityViolationException("statement failed", sql),
                new MockHttpServletRequest("POST", "/ojs/v1/workers/ack"));
        assertThat(response.getStatusCode().value()).isEqualTo(400);
        String body = JSON.writeValueAsString(response.getBody());
        assertThat(body).contains("\"code\":\"invalid_request\"").doesNotContain("byte sequence", "UTF8", "22021");

        ResponseEntity<OjsErrorBody> other = new OjsExceptionHandler().dataAccess(
                new org.springframework.dao.DataIntegrityViolationException("x", new java.sql.SQLException("x", "23503")),
                new MockHttpServletRequest("POST", "/ojs/v1/jobs"));
        assertThat(other.getStatusCode().value()).isEqualTo(500);
    }

    @Test
    void anAnswerThatCannotBeWrittenIsNotToBeRetriedBlindly() {
        ResponseEntity<OjsErrorBody> response = new OjsExceptionHandler().notWritable(
                new HttpMessageNotWritableException("nesting too deep"), new MockHttpServletRequest("POST", "/ojs/v1/jobs"));
        assertThat(response.getStatusCode().value()).isEqualTo(500);
        String body = JSON.writeValueAsString(response.getBody());
        assertThat(body).contains("\"retryable\":false", "\"code\":\"internal_error\"", "may have been carried out");
    }
}
