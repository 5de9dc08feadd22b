package io.pgvs3.server.security;

import java.util.List;
import java.util.Map;

import io.pgvs3.server.ServerTestSupport;
import io.pgvs3.test.OjsClient.Response;
import org.junit.jupiter.api.Test;

import org.springframework.test.context.TestPropertySource;

import static io.pgvs3.server.security.SecurityAssertions.assertError;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A server on loopback with no token is open; the first token created in the catalog closes it at once, and
 * revoking the last one opens it again.
 */
// a context (and database) of its own: the tokens it creates must not reach the other tests' open server
@TestPropertySource(properties = "pgvs3.security.allow-anonymous=false")
class CatalogTokenClosesOpenServerTest extends ServerTestSupport {

    @Test
    void theFirstCatalogTokenRequiresCredentialsEverywhere() {
        assertThat(http.get("/ojs/v1/queues").status()).isEqualTo(200);
        Response health = http.get("/ojs/v1/health");
        assertThat(health.json().path("backend").path("version").asString()).isNotBlank();

        Response created = http.post("/ojs/v1/admin/tokens", Map.of("name", "root", "scopes", List.of("admin")));
        assertThat(created.status()).isEqualTo(201);
        String token = created.json().path("token").asString();

        assertError(http.get("/ojs/v1/queues"), 401, "unauthorized");
        assertError(http.post("/ojs/v1/admin/tokens", Map.of("name", "sneaky", "scopes", List.of("admin"))), 401,
                "unauthorized");
        assertThat(http.get("/ojs/v1/health").text()).doesNotContain("backend");
        assertThat(http.withBearer(token).get("/ojs/v1/queues").status()).isEqualTo(200);
        assertThat(jdbc.queryForList("SELECT name FROM s3p.api_tokens", String.class)).containsExactly("root");

        assertThat(http.withBearer(token).delete("/ojs/v1/admin/tokens/root").status()).isEqualTo(200);
        assertThat(http.get("/ojs/v1/queues").status()).isEqualTo(200);
    }
}
