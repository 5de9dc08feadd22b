package io.pgvs3.spring.web.jobs;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.pgvs3.core.cluster.Cluster;
import io.pgvs3.core.cluster.ClusterRouter;
import io.pgvs3.core.error.Pgvs3Exception;
import io.pgvs3.core.job.JobRequests;
import io.pgvs3.core.job.NewJob;
import io.pgvs3.core.job.WorkflowStore;
import io.pgvs3.core.json.JsonFields;
import io.pgvs3.spring.web.Pagination;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code POST} and {@code GET /ojs/v1/workflows} (newest first), {@code GET} and {@code DELETE /ojs/v1/workflows/{id}}. The body names a
 * {@code type} ({@code chain}, {@code group}, {@code batch} or {@code graph}; without one, see
 * {@link UntypedWorkflow}), the jobs as {@code steps} or {@code jobs} (job envelopes;
 * in a graph each may carry a {@code name}, {@code key} or step {@code id} and {@code depends_on}, a list of names or
 * indexes), and for a batch {@code callbacks} with {@code on_success}, {@code on_failure} and {@code on_complete}.
 */
@RestController
public class WorkflowController {

    static final int MAX_LIMIT = 200;

    private final WorkflowStore workflows;
    private final ClusterRouter router;

    public WorkflowController(WorkflowStore workflows) {
        this(workflows, null);
    }

    /** @param router the clusters, or null for one: a workflow's jobs must then all live on the default cluster */
    public WorkflowController(WorkflowStore workflows, ClusterRouter router) {
        this.workflows = workflows;
        this.router = router;
    }

    @PostMapping("/ojs/v1/workflows")
    public ResponseEntity<Map<String, Object>> create(@RequestBody(required = false) JsonNode body) {
        JobRequests.body(body);
        JsonNode jobs = body.has("steps") ? body.get("steps") : body.get("jobs");
        if (jobs == null || !jobs.isArray() || jobs.isEmpty()) {
            throw Pgvs3Exception.invalidRequest("a workflow needs a non-empty array of 'steps' or 'jobs'", "jobs");
        }
        for (int i = 0; i < jobs.size(); i++) {
            if (!jobs.get(i).isObject()) {
                throw Pgvs3Exception.invalidRequest("jobs[" + i + "] must be a job object, not "
                        + JsonFields.kind(jobs.get(i)), "jobs[" + i + "]");
            }
        }
        JsonNode typeNode = body.get("type");
        String type;
        List<JsonNode> steps;
        Map<String, JsonNode> callbackJobs = new LinkedHashMap<>();
        if (typeNode == null || typeNode.isNull()) {
            UntypedWorkflow untyped = UntypedWorkflow.of(jobs);
            type = untyped.type();
            steps = untyped.steps();
            callbackJobs.putAll(untyped.callbacks());
        }
        else {
            type = JsonFields.requiredString(body, "type");
            if ("dag".equals(type) || "workflow".equals(type)) {
                type = "graph";
            }
            steps = jobs.valueStream().toList();
        }
        Map<String, Integer> names = new HashMap<>();
        for (int i = 0; i < steps.size(); i++) {
            String name = stepName(steps.get(i));
            if (name != null && names.putIfAbsent(name, i) != null && "graph".equals(type)) {
                throw Pgvs3Exception.invalidRequest("jobs[" + i + "] repeats the step name '" + name
                        + "', which depends_on could not tell apart", "jobs[" + i + "]");
            }
        }
        List<WorkflowStore.Node> nodes = new ArrayList<>();
        for (int i = 0; i < steps.size(); i++) {
            JsonNode job = steps.get(i);
            nodes.add(new WorkflowStore.Node(parse(job, "jobs[" + i + "]"), dependencies(job.get("depends_on"), names, i)));
        }
        JsonNode callbackNode = body.get("callbacks");
        if (callbackNode != null && !callbackNode.isNull()) {
            if (!callbackNode.isObject()) {
                throw Pgvs3Exception.invalidRequest("'callbacks' must be an object", "callbacks");
            }
            for (Map.Entry<String, JsonNode> callback : callbackNode.properties()) {
                callbackJobs.put(callback.getKey(), callback.getValue());
            }
        }
        Map<String, NewJob> callbacks = new LinkedHashMap<>();
        callbackJobs.forEach((when, job) -> callbacks.put(when, parse(job, "callbacks." + when)));
        requireDefaultCluster(nodes.stream().map(WorkflowStore.Node::job).toList());
        requireDefaultCluster(callbacks.values());
        Map<String, Object> workflow = workflows.create(type, JsonFields.optionalString(body, "name"), nodes, callbacks);
        return ResponseEntity.status(HttpStatus.CREATED).body(answer(workflow));
    }

    @GetMapping("/ojs/v1/workflows")
    public Map<String, Object> list(@RequestParam(defaultValue = "50") int limit,
            @RequestParam(defaultValue = "0") int offset) {
        Pagination.check(limit, offset, MAX_LIMIT);
        List<Map<String, Object>> page = workflows.list(limit, offset);
        long total = workflows.count();
        return Map.of("workflows", page, "pagination", Pagination.view(total, limit, offset, page.size()));
    }

    @GetMapping("/ojs/v1/workflows/{id}")
    public Map<String, Object> get(@PathVariable String id) {
        return answer(workflows.get(id).orElseThrow(() -> Pgvs3Exception.notFound("workflow " + id + " not found")));
    }

    @DeleteMapping("/ojs/v1/workflows/{id}")
    public Map<String, Object> cancel(@PathVariable String id) {
        return answer(workflows.cancel(id));
    }

    /**
     * Workflows live in the default cluster's catalog and advance in the transactions of their jobs' acks there, so
     * their jobs must be on that cluster.
     */
    private void requireDefaultCluster(Collection<NewJob> jobs) {
        if (router == null || router.isSingle()) {
            return;
        }
        for (NewJob job : jobs) {
            String cluster = router.forQueue(job.queue().value()).name();
            if (!Cluster.DEFAULT.equals(cluster)) {
                throw Pgvs3Exception.invalidRequest("a workflow's jobs must live on the default cluster; queue '"
                        + job.queue().value() + "' is on cluster '" + cluster + "'", "queue");
            }
        }
    }

    /**
     * A workflow as the clients read it: under {@code workflow} (the conformance suites, the Python and Java SDKs),
     * and its status at the top level with {@code metadata} counts (the JavaScript SDK's {@code WorkflowStatus}).
     */
    private static Map<String, Object> answer(Map<String, Object> workflow) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("workflow", workflow);
        for (String field : List.of("id", "type", "name", "state")) {
            if (workflow.get(field) != null) {
                body.put(field, workflow.get(field));
            }
        }
        Map<String, Object> metadata = new LinkedHashMap<>();
        metadata.put("created_at", workflow.get("created_at"));
        if (workflow.get("finished_at") != null) {
            metadata.put("completed_at", workflow.get("finished_at"));
        }
        metadata.put("job_count", workflow.get("jobs_total"));
        metadata.put("completed_count", workflow.get("jobs_completed"));
        metadata.put("failed_count", workflow.get("jobs_failed"));
        body.put("metadata", metadata);
        return body;
    }

    /**
     * The name other steps' {@code depends_on} refer to a step by: its {@code name}, {@code key} or, as the SDKs send
     * it, {@code id} (a step id such as {@code step_0}, not the job's id: every job of a workflow gets a new id).
     */
    static String stepName(JsonNode job) {
        for (String field : List.of("name", "key", "id")) {
            JsonNode name = job.get(field);
            if (name != null && name.isString()) {
                return name.stringValue();
            }
        }
        return null;
    }

    private static NewJob parse(JsonNode job, String where) {
        if (!job.isObject()) {
            throw Pgvs3Exception.invalidRequest(where + " must be a job object, not " + JsonFields.kind(job), where);
        }
        try {
            ObjectNode copy = (ObjectNode) job.deepCopy();
            copy.remove("id");
            if (!copy.has("args")) {
                copy.putArray("args");
            }
            return JobRequests.parse(copy);
        }
        catch (Pgvs3Exception ex) {
            throw new Pgvs3Exception(ex.code(), where + ": " + ex.getMessage(), ex.details());
        }
    }

    private static List<Integer> dependencies(JsonNode dependsOn, Map<String, Integer> names, int index) {
        if (dependsOn == null || dependsOn.isNull()) {
            return List.of();
        }
        if (!dependsOn.isArray()) {
            throw Pgvs3Exception.invalidRequest("jobs[" + index + "].depends_on must be an array", "depends_on");
        }
        List<Integer> result = new ArrayList<>();
        for (JsonNode dependency : dependsOn) {
            if (dependency.isIntegralNumber() && dependency.canConvertToInt()) {
                result.add(dependency.intValue());
            }
            else if (dependency.isString() && names.containsKey(dependency.stringValue())) {
                result.add(names.get(dependency.stringValue()));
            }
            else {
                throw Pgvs3Exception.invalidRequest("jobs[" + index + "] depends on unknown job " + dependency, "depends_on");
            }
        }
        return result;
    }
}
