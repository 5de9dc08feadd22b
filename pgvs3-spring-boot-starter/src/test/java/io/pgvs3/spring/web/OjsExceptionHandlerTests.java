package io.pgvs3.spring.web;

import java.sql.SQLException;

import io.pgvs3.core.error.Pgvs3Exception;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import org.springframework.dao.DataIntegrityViolationException;
import org.springframework.http.MediaType;
import org.springframework.jdbc.CannotGetJdbcConnectionException;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.setup.MockMvcBuilders;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.not;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.post;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.content;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

/** Every failure of a pgvs3 route becomes the OJS error body, with the status of its error code. */
class OjsExceptionHandlerTests {

    private final MockMvc mvc = MockMvcBuilders.standaloneSetup(new FailingController())
            .setControllerAdvice(new OjsExceptionHandler()).build();

    @Test
    void aPgvs3ExceptionKeepsItsCodeAndDetails() throws Exception {
        mvc.perform(get("/t/invalid")).andExpect(status().isBadRequest())
                .andExpect(jsonPath("$.error.code").value("invalid_request"))
                .andExpect(jsonPath("$.error.message").value("'n' is wrong"))
                .andExpect(jsonPath("$.error.details.field").value("n"))
                .andExpect(jsonPath("$.error.retryable").value(false));
        mvc.perform(get("/t/missing")).andExpect(status().isNotFound())
                .andExpect(jsonPath("$.error.code").value("not_found"));
    }

    @Test
    void anUnreadableOrMissingBodyIsAnInvalidPayload() throws Exception {
        mvc.perform(post("/t/body").contentType(MediaType.APPLICATION_JSON).content("{\"a\":"))
                .andExpect(status().isBadRequest()).andExpect(jsonPath("$.error.code").value("invalid_payload"))
                .andExpect(jsonPath("$.error.message").value("request body is not valid JSON"));
        mvc.perform(post("/t/body").contentType(MediaType.APPLICATION_JSON)).andExpect(status().isBadRequest())
                .andExpect(jsonPath("$.error.message").value("request body is missing"));
    }

    @Test
    void anUnsupportedContentTypeIs415() throws Exception {
        mvc.perform(post("/t/body").contentType(MediaType.TEXT_PLAIN).content("x"))
                .andExpect(status().isUnsupportedMediaType())
                .andExpect(jsonPath("$.error.code").value("unsupported_media_type"));
    }

    @Test
    void aMissingOrMistypedParameterNamesIt() throws Exception {
        mvc.perform(get("/t/param")).andExpect(status().isBadRequest())
                .andExpect(jsonPath("$.error.details.field").value("limit"));
        mvc.perform(get("/t/param").param("limit", "many")).andExpect(status().isBadRequest())
                .andExpect(jsonPath("$.error.message").value("parameter 'limit' is missing or invalid"));
    }

    @Test
    void aValueThePostgresRefusedIs400AndAnUnreachableDatabase503() throws Exception {
        mvc.perform(get("/t/data")).andExpect(status().isBadRequest())
                .andExpect(jsonPath("$.error.code").value("invalid_request"))
                .andExpect(content().string(not(containsString("secret detail"))));
        mvc.perform(get("/t/down")).andExpect(status().isServiceUnavailable())
                .andExpect(jsonPath("$.error.code").value("backend_unavailable"))
                .andExpect(jsonPath("$.error.retryable").value(true));
    }

    @Test
    void anythingElseIsAnInternalErrorWithoutItsMessage() throws Exception {
        mvc.perform(get("/t/bug")).andExpect(status().isInternalServerError())
                .andExpect(jsonPath("$.error.code").value("internal_error"))
                .andExpect(content().string(not(containsString("NullPointer"))))
                .andExpect(content().string(not(containsString("secret detail"))));
        mvc.perform(get("/t/wrapped")).andExpect(status().isNotFound())
                .andExpect(jsonPath("$.error.code").value("not_found"));
    }

    @RestController
    static class FailingController {

        @GetMapping("/t/invalid")
        String invalid() {
            throw Pgvs3Exception.invalidRequest("'n' is wrong", "n");
        }

        @GetMapping("/t/missing")
        String missing() {
            throw Pgvs3Exception.notFound("no such thing");
        }

        @PostMapping("/t/body")
        String body(@RequestBody JsonNode body) {
            return "ok";
        }

        @GetMapping("/t/param")
        String param(@RequestParam int limit) {
            return "ok";
        }

        @GetMapping("/t/data")
        String data() {
            throw new DataIntegrityViolationException("refused",
                    new SQLException("secret detail", "22P02"));
        }

        @GetMapping("/t/down")
        String down() {
            throw new CannotGetJdbcConnectionException("no connection", new SQLException("secret detail"));
        }

        @GetMapping("/t/bug")
        String bug() {
            throw new NullPointerException("secret detail");
        }

        @GetMapping("/t/wrapped")
        String wrapped() {
            throw new IllegalStateException(Pgvs3Exception.notFound("gone"));
        }
    }
}
