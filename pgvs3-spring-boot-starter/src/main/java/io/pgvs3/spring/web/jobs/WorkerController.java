package io.pgvs3.spring.web.jobs;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.pgvs3.core.cluster.ClusterJobs;
import io.pgvs3.core.cluster.ClusterRouter;
import io.pgvs3.core.error.Pgvs3Exception;
import io.pgvs3.core.job.HeartbeatResult;
import io.pgvs3.core.job.Job;
import io.pgvs3.core.job.JobError;
import io.pgvs3.core.job.JobRequests;
import io.pgvs3.core.job.JobStore;
import io.pgvs3.core.json.JsonFields;
import tools.jackson.databind.JsonNode;

import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

/**
 * The worker protocol: {@code POST /ojs/v1/workers/fetch}, {@code /ack}, {@code /nack} and {@code /heartbeat}.
 * A fetch over queues on several clusters visits the clusters in the order of the first requested queue each holds
 * (see {@link ClusterJobs#fetch}); an ack or nack goes to its job's cluster ({@link ClusterRouter#withJob}).
 */
@RestController
public class WorkerController {

    private final ClusterRouter router;
    private final ClusterJobs jobs;

    public WorkerController(ClusterRouter router) {
        this.router = router;
        this.jobs = new ClusterJobs(router);
    }

    @PostMapping("/ojs/v1/workers/fetch")
    public Map<String, Object> fetch(@RequestBody(required = false) JsonNode body) {
        JobRequests.body(body);
        JsonNode named = body.get("queues");
        List<String> queues = strings(named, "queues");
        if (named != null && !named.isNull() && queues.isEmpty()) {
            // an explicit empty list names no queue to work; only a request without the field means the default
            throw Pgvs3Exception.invalidRequest("'queues' must name at least one queue", "queues");
        }
        if (queues.isEmpty()) {
            String queue = JsonFields.optionalString(body, "queue");
            queues = List.of(queue != null ? queue : "default");
        }
        Long count = JsonFields.optionalLong(body, "count");
        if (count != null && (count < 1 || count > JobStore.MAX_FETCH_COUNT)) {
            throw Pgvs3Exception.invalidRequest("count must be between 1 and " + JobStore.MAX_FETCH_COUNT, "count");
        }
        List<Job> fetched = jobs.fetch(queues, count == null ? 1 : count.intValue(),
                JsonFields.optionalString(body, "worker_id"), duration(body, "visibility_timeout_ms"));
        return Map.of("jobs", fetched.stream().map(Job::envelope).toList());
    }

    @PostMapping("/ojs/v1/workers/ack")
    public Map<String, Object> ack(@RequestBody(required = false) JsonNode body) {
        JobRequests.body(body);
        JsonNode result = body.get("result");
        String jobId = JsonFields.requiredString(body, "job_id");
        String workerId = JsonFields.optionalString(body, "worker_id");
        String resultJson = result == null ? null : result.toString();
        return JobViews.outcome(router.withJob(jobId, jobs -> jobs.ack(jobId, workerId, resultJson)));
    }

    @PostMapping("/ojs/v1/workers/nack")
    public Map<String, Object> nack(@RequestBody(required = false) JsonNode body) {
        JobRequests.body(body);
        String jobId = JsonFields.requiredString(body, "job_id");
        JsonNode error = body.get("error");
        JobError jobError;
        if (error == null || error.isNull()) {
            jobError = JobError.of("handler_error", "job failed");
        }
        else if (!error.isObject()) {
            throw Pgvs3Exception.invalidRequest("'error' must be an object", "error");
        }
        else {
            JsonNode details = error.get("details");
            jobError = new JobError(JsonFields.optionalString(error, "code"), JsonFields.optionalString(error, "message"),
                    JsonFields.optionalString(error, "type"), JsonFields.optionalBoolean(error, "retryable"),
                    details == null || details.isNull() ? null : details.toString(), null, null);
        }
        Boolean requeue = JsonFields.optionalBoolean(body, "requeue");
        String workerId = JsonFields.optionalString(body, "worker_id");
        JobError reported = jobError;
        return JobViews.outcome(router.withJob(jobId,
                jobs -> jobs.nack(jobId, workerId, reported, Boolean.TRUE.equals(requeue))));
    }

    @PostMapping("/ojs/v1/workers/heartbeat")
    public Map<String, Object> heartbeat(@RequestBody(required = false) JsonNode body) {
        JobRequests.body(body);
        String workerId = JsonFields.optionalString(body, "worker_id");
        List<String> jobIds = new ArrayList<>();
        JsonNode active = body.get("active_jobs");
        if (active != null && active.isArray()) {
            jobIds.addAll(strings(active, "active_jobs"));
        }
        else if (active != null && !active.isNull() && !active.isNumber()) {
            throw Pgvs3Exception.invalidRequest("'active_jobs' must be an array of job ids or a count", "active_jobs");
        }
        jobIds.addAll(strings(body.get("active_job_ids"), "active_job_ids"));
        jobIds.addAll(strings(body.get("job_ids"), "job_ids"));
        HeartbeatResult result = jobs.heartbeat(workerId, jobIds, duration(body, "visibility_timeout_ms"));
        Map<String, Object> response = new LinkedHashMap<>();
        response.put("state", result.directive());
        response.put("directive", result.directive());
        response.put("jobs_extended", result.extendedJobIds());
        response.put("server_time", Instant.now().toString());
        return response;
    }

    private static Duration duration(JsonNode body, String field) {
        Long ms = JsonFields.optionalLong(body, field);
        if (ms == null) {
            return null;
        }
        if (ms <= 0) {
            throw Pgvs3Exception.invalidRequest("'" + field + "' must be positive", field);
        }
        return Duration.ofMillis(ms);
    }

    private static List<String> strings(JsonNode node, String field) {
        if (node == null || node.isNull()) {
            return List.of();
        }
        if (!node.isArray()) {
            throw Pgvs3Exception.invalidRequest("'" + field + "' must be an array of strings", field);
        }
        List<String> values = new ArrayList<>();
        for (JsonNode element : node) {
            if (!element.isString()) {
                throw Pgvs3Exception.invalidRequest("'" + field + "' must be an array of strings", field);
            }
            values.add(element.stringValue());
        }
        return values;
    }
}
