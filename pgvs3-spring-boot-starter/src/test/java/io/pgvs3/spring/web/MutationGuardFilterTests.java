package io.pgvs3.spring.web;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class MutationGuardFilterTests {

    @Test
    void onlyJsonContentTypesAreJson() {
        assertThat(MutationGuardFilter.isJson("application/json")).isTrue();
        assertThat(MutationGuardFilter.isJson("application/json; charset=utf-8")).isTrue();
        assertThat(MutationGuardFilter.isJson("APPLICATION/OPENJOBSPEC+JSON;charset=UTF-8")).isTrue();
        assertThat(MutationGuardFilter.isJson("text/plain")).isFalse();
        assertThat(MutationGuardFilter.isJson("application/x-www-form-urlencoded")).isFalse();
        assertThat(MutationGuardFilter.isJson("multipart/form-data; boundary=x")).isFalse();
        assertThat(MutationGuardFilter.isJson("application/problem+json")).isFalse();
        assertThat(MutationGuardFilter.isJson("text/json")).isFalse();
        assertThat(MutationGuardFilter.isJson("not a type")).isFalse();
        assertThat(MutationGuardFilter.isJson(null)).isFalse();
    }
}
