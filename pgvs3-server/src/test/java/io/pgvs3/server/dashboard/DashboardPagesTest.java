package io.pgvs3.server.dashboard;

import io.pgvs3.server.ServerTestSupport;
import io.pgvs3.test.OjsClient.Response;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The dashboard's files and settings as the server serves them. */
class DashboardPagesTest extends ServerTestSupport {

    @Test
    void thePageItsScriptAndItsSettingsAreServed() {
        Response page = http.get("/dashboard/");
        assertThat(page.status()).isEqualTo(200);
        assertThat(page.header("Content-Type")).startsWith("text/html");
        assertThat(page.text()).contains("<title>pgvs3 dashboard</title>", "app.js");
        assertThat(http.get("/dashboard/app.js").status()).isEqualTo(200);
        assertThat(http.get("/dashboard/style.css").status()).isEqualTo(200);

        Response redirect = http.get("/dashboard");
        assertThat(redirect.status()).isEqualTo(302);
        assertThat(redirect.header("Location")).isEqualTo("/dashboard/");

        Response settings = http.get("/dashboard/settings");
        assertThat(settings.json().path("read_only").asBoolean()).isFalse();
        assertThat(settings.json().path("api_docs").asString()).isEqualTo("/v3/api-docs");
        assertThat(settings.json().path("api_ui").asString()).isEqualTo("/swagger-ui/index.html");

        Response missing = http.get("/dashboard/nothing.js");
        assertThat(missing.status()).isEqualTo(404);
        assertThat(missing.errorCode()).isEqualTo("not_found");
    }
}
