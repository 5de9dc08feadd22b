package io.pgvs3.spring.web.jobs;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.pgvs3.core.error.Pgvs3Exception;
import io.pgvs3.core.job.Cron;
import io.pgvs3.core.job.CronStore;
import io.pgvs3.core.job.JobRequests;
import io.pgvs3.core.json.JsonFields;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code GET/POST /ojs/v1/cron}, {@code GET/DELETE /ojs/v1/cron/{name}} and {@code POST /ojs/v1/cron/{name}/enable}
 * or {@code /disable}. A registration names the schedule as
 * {@code expression} (or {@code cron} / {@code schedule}), an optional IANA {@code timezone} and
 * {@code overlap_policy}, and the job either as {@code job_template} (or {@code job}) or as top-level
 * {@code type}, {@code args}, {@code meta} and {@code options}. Every answer names a cron as {@code cron} and as
 * {@code cron_job} (the list: {@code crons} and {@code cron_jobs}).
 */
@RestController
public class CronController {

    private final CronStore crons;

    public CronController(CronStore crons) {
        this.crons = crons;
    }

    @GetMapping("/ojs/v1/cron")
    public Map<String, Object> list() {
        List<Map<String, Object>> all = crons.list().stream().map(Cron::toMap).toList();
        return Map.of("crons", all, "cron_jobs", all);
    }

    @PostMapping("/ojs/v1/cron")
    public ResponseEntity<Map<String, Object>> register(@RequestBody(required = false) JsonNode body) {
        JobRequests.body(body);
        String expression = firstString(body, "expression", "cron", "schedule");
        JsonNode template = body.has("job_template") ? body.get("job_template") : body.get("job");
        if (template == null || template.isNull()) {
            ObjectNode inline = JsonNodeFactory.instance.objectNode();
            for (String field : List.of("type", "args", "meta", "options")) {
                if (body.has(field)) {
                    inline.set(field, body.get(field));
                }
            }
            if (!inline.has("args")) {
                inline.set("args", JsonNodeFactory.instance.arrayNode());
            }
            template = inline;
        }
        Cron cron = crons.register(JsonFields.requiredString(body, "name"), expression,
                firstString(body, "timezone", "time_zone"), JsonFields.optionalString(body, "overlap_policy"), template);
        return ResponseEntity.status(HttpStatus.CREATED).body(item(cron));
    }

    @GetMapping("/ojs/v1/cron/{name}")
    public Map<String, Object> get(@PathVariable String name) {
        return item(crons.get(name).orElseThrow(() -> Pgvs3Exception.notFound("cron '" + name + "' not found")));
    }

    @PostMapping("/ojs/v1/cron/{name}/enable")
    public Map<String, Object> enable(@PathVariable String name) {
        return Map.of("cron", crons.setEnabled(name, true).toMap());
    }

    @PostMapping("/ojs/v1/cron/{name}/disable")
    public Map<String, Object> disable(@PathVariable String name) {
        return Map.of("cron", crons.setEnabled(name, false).toMap());
    }

    @DeleteMapping("/ojs/v1/cron/{name}")
    public Map<String, Object> delete(@PathVariable String name) {
        Map<String, Object> body = item(crons.delete(name));
        body.put("deleted", true);
        return body;
    }

    /** One cron under both names clients read it by: {@code cron} (conformance suites), {@code cron_job} (the SDKs). */
    private static Map<String, Object> item(Cron cron) {
        Map<String, Object> view = cron.toMap();
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("cron", view);
        body.put("cron_job", view);
        return body;
    }

    private static String firstString(JsonNode body, String... fields) {
        for (String field : fields) {
            String value = JsonFields.optionalString(body, field);
            if (value != null) {
                return value;
            }
        }
        return null;
    }
}
