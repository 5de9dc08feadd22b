package io.pgvs3.core.job;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import tools.jackson.databind.JsonNode;

/** A registered cron: what it enqueues ({@code jobTemplate}, an OJS job envelope), when, and when it last fired. */
public record Cron(String name, String expression, String timezone, String overlapPolicy, boolean enabled, String queue,
        JsonNode jobTemplate, Instant nextRunAt, Instant lastRunAt, String lastJobId, Instant createdAt) {

    /**
     * The wire form of the cron routes: the fields of the conformance suites ({@code expression}, {@code job_template},
     * {@code enabled}, ...) and those the HTTP binding's cron item has and the client SDKs read ({@code cron},
     * {@code type}, {@code args}, {@code options}, {@code status}).
     */
    public Map<String, Object> toMap() {
        Map<String, Object> map = new LinkedHashMap<>();
        map.put("name", name);
        map.put("expression", expression);
        map.put("cron", expression);
        map.put("type", jobTemplate.path("type").asString(null));
        map.put("args", jobTemplate.has("args") ? jobTemplate.get("args") : List.of());
        if (jobTemplate.hasNonNull("meta")) {
            map.put("meta", jobTemplate.get("meta"));
        }
        if (jobTemplate.hasNonNull("options")) {
            map.put("options", jobTemplate.get("options"));
        }
        map.put("status", enabled ? "active" : "paused");
        map.put("timezone", timezone);
        map.put("overlap_policy", overlapPolicy);
        map.put("enabled", enabled);
        map.put("queue", queue);
        map.put("job_template", jobTemplate);
        map.put("next_run_at", nextRunAt.toString());
        if (lastRunAt != null) {
            map.put("last_run_at", lastRunAt.toString());
        }
        if (lastJobId != null) {
            map.put("last_job_id", lastJobId);
        }
        map.put("created_at", createdAt.toString());
        return map;
    }
}
