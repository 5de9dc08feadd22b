package io.pgvs3.spring.web.jobs;

import java.util.List;
import java.util.Map;

import io.pgvs3.test.OjsClient;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import static io.pgvs3.spring.web.jobs.JobRoutesApp.assertError;
import static org.assertj.core.api.Assertions.assertThat;

/** {@code /ojs/v1/cron}: register, list, read, enable and disable, delete over HTTP. */
class CronControllerTests {

    private static final JobRoutesApp app = JobRoutesApp.shared();
    private static final OjsClient http = app.http();

    @Test
    void aRegisteredCronIsListedReadDisabledEnabledAndDeleted() {
        OjsClient.Response registered = http.post("/ojs/v1/cron", Map.of("name", "cc-nightly",
                "expression", "*/5 * * * *", "job_template", Map.of("type", "report.build", "args", List.of(1),
                        "options", Map.of("queue", "cc-reports"))));
        assertThat(registered.status()).as(registered.toString()).isEqualTo(201);
        JsonNode cron = registered.json().path("cron");
        assertThat(cron.path("name").asString()).isEqualTo("cc-nightly");
        assertThat(cron.path("expression").asString()).isEqualTo("*/5 * * * *");
        assertThat(cron.path("enabled").asBoolean()).isTrue();
        assertThat(cron.path("next_run_at").asString()).isNotBlank();
        assertThat(registered.json().path("cron_job")).isEqualTo(cron);

        OjsClient.Response list = http.get("/ojs/v1/cron");
        assertThat(list.status()).isEqualTo(200);
        assertThat(names(list.json().path("crons"))).contains("cc-nightly");
        assertThat(names(list.json().path("cron_jobs"))).contains("cc-nightly");

        OjsClient.Response read = http.get("/ojs/v1/cron/cc-nightly");
        assertThat(read.status()).isEqualTo(200);
        assertThat(read.json().path("cron").path("expression").asString()).isEqualTo("*/5 * * * *");

        OjsClient.Response disabled = http.post("/ojs/v1/cron/cc-nightly/disable", Map.of());
        assertThat(disabled.status()).as(disabled.toString()).isEqualTo(200);
        assertThat(disabled.json().path("cron").path("enabled").asBoolean()).isFalse();
        assertThat(http.get("/ojs/v1/cron/cc-nightly").json().path("cron").path("enabled").asBoolean()).isFalse();
        assertThat(http.post("/ojs/v1/cron/cc-nightly/enable", Map.of()).json().path("cron").path("enabled")
                .asBoolean()).isTrue();

        OjsClient.Response deleted = http.delete("/ojs/v1/cron/cc-nightly");
        assertThat(deleted.status()).as(deleted.toString()).isEqualTo(200);
        assertThat(deleted.json().path("deleted").asBoolean()).isTrue();
        assertThat(deleted.json().path("cron").path("name").asString()).isEqualTo("cc-nightly");
        assertThat(names(http.get("/ojs/v1/cron").json().path("crons"))).doesNotContain("cc-nightly");
        assertError(http.get("/ojs/v1/cron/cc-nightly"), 404, "not_found");
        assertError(http.delete("/ojs/v1/cron/cc-nightly"), 404, "not_found");
    }

    @Test
    void aCronWithTopLevelJobFieldsAndATimezoneIsRegisteredAndRegisteringAgainReplacesIt() {
        OjsClient.Response inline = http.post("/ojs/v1/cron", Map.of("name", "cc-inline", "cron", "0 3 * * *",
                "timezone", "Europe/Berlin", "type", "cleanup", "options", Map.of("queue", "cc-maint")));
        assertThat(inline.status()).as(inline.toString()).isEqualTo(201);
        assertThat(inline.json().path("cron").path("timezone").asString()).isEqualTo("Europe/Berlin");

        OjsClient.Response replaced = http.post("/ojs/v1/cron", Map.of("name", "cc-inline", "cron", "0 4 * * *",
                "type", "cleanup"));
        assertThat(replaced.status()).as(replaced.toString()).isEqualTo(201);
        assertThat(http.get("/ojs/v1/cron/cc-inline").json().path("cron").path("expression").asString())
                .isEqualTo("0 4 * * *");
        assertThat(names(http.get("/ojs/v1/cron").json().path("crons")).stream().filter("cc-inline"::equals))
                .hasSize(1);
    }

    @Test
    void anInvalidRegistrationIsRefusedAndNothingIsRegistered() {
        Map<String, Object> job = Map.of("type", "x.job", "args", List.of());
        for (Object body : List.of(
                Map.of("name", "cc-bad", "expression", "not a valid cron", "job_template", job),
                Map.of("name", "cc-bad", "expression", "99 25 32 13 8", "job_template", job),
                Map.of("name", "cc-bad", "expression", "* * * * *", "timezone", "Mars/Olympus", "job_template", job),
                Map.of("name", "cc-bad", "job_template", job),
                Map.of("expression", "* * * * *", "job_template", job),
                Map.of("name", "cc-bad", "expression", "* * * * *", "job_template", Map.of("args", List.of())),
                Map.of("name", "cc-bad", "expression", "* * * * *", "job_template", job, "overlap_policy", 3),
                "[1]")) {
            OjsClient.Response refused = http.post("/ojs/v1/cron", body);
            assertThat(refused.status()).as(body + " → " + refused).isIn(400, 422);
            assertThat(refused.errorCode()).as(refused.toString()).isEqualTo("invalid_request");
        }
        assertError(http.postRaw("/ojs/v1/cron", null, OjsClient.OJS_JSON), 400, "invalid_payload");
        assertError(http.get("/ojs/v1/cron/cc-bad"), 404, "not_found");
    }

    @Test
    void enablingOrDisablingAnUnknownCronIs404() {
        assertError(http.post("/ojs/v1/cron/cc-none/enable", Map.of()), 404, "not_found");
        assertError(http.post("/ojs/v1/cron/cc-none/disable", Map.of()), 404, "not_found");
    }

    private static List<String> names(JsonNode crons) {
        return crons.valueStream().map(cron -> cron.path("name").asString()).toList();
    }
}
