package io.pgvs3.server.security;

import io.pgvs3.test.OjsClient.Response;

import static org.assertj.core.api.Assertions.assertThat;

final class SecurityAssertions {

    private SecurityAssertions() {
    }

    /** A refusal with the OJS error body and headers. */
    static void assertError(Response response, int status, String code) {
        assertThat(response.status()).as(response.toString()).isEqualTo(status);
        assertThat(response.header("OJS-Version")).isEqualTo("1.0");
        assertThat(response.header("X-Request-Id")).isNotBlank();
        assertThat(response.header("Content-Type")).startsWith("application/openjobspec+json");
        var error = response.json().path("error");
        assertThat(error.path("code").asString()).isEqualTo(code);
        assertThat(error.path("message").isString()).isTrue();
        assertThat(error.path("request_id").asString()).isEqualTo(response.header("X-Request-Id"));
    }
}
