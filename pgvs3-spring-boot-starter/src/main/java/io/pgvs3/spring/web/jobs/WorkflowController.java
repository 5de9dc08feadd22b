package io.pgvs3.spring.web.jobs;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.pgvs3.core.error.Pgvs3Exception;
import io.pgvs3.core.job.NewJob;
import io.pgvs3.core.job.WorkflowStore;
import io.pgvs3.spring.web.JsonFields;
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
 * {@code type} ({@code chain}, {@code group}, {@code batch} or {@code graph}), the jobs as {@code steps} or
 * {@code jobs} (job envelopes; in a graph each may carry a {@code name} and {@code depends_on}, a list of names or
 * indexes), and for a batch {@code callbacks} with {@code on_success}, {@code on_failure} and {@code on_complete}.
 */
@RestController
public class WorkflowController {

    static final int MAX_LIMIT = 200;

    private final WorkflowStore workflows;

    public WorkflowController(WorkflowStore workflows) {
        this.workflows = workflows;
    }

    @PostMapping("/ojs/v1/workflows")
    public ResponseEntity<Map<String, Object>> create(@RequestBody(required = false) JsonNode body) {
        JobRequests.body(body);
        String type = JsonFields.requiredString(body, "type");
        if ("dag".equals(type) || "workflow".equals(type)) {
            type = "graph";
        }
        JsonNode jobs = body.has("steps") ? body.get("steps") : body.get("jobs");
        if (jobs == null || !jobs.isArray() || jobs.isEmpty()) {
            throw Pgvs3Exception.invalidRequest("a workflow needs a non-empty array of 'steps' or 'jobs'", "jobs");
        }
        Map<String, Integer> names = new HashMap<>();
        for (int i = 0; i < jobs.size(); i++) {
            JsonNode name = jobs.get(i).has("name") ? jobs.get(i).get("name") : jobs.get(i).get("key");
            if (name != null && name.isString()) {
                names.put(name.stringValue(), i);
            }
        }
        List<WorkflowStore.Node> nodes = new ArrayList<>();
        for (int i = 0; i < jobs.size(); i++) {
            JsonNode job = jobs.get(i);
            nodes.add(new WorkflowStore.Node(parse(job, "jobs[" + i + "]"), dependencies(job.get("depends_on"), names, i)));
        }
        Map<String, NewJob> callbacks = new LinkedHashMap<>();
        JsonNode callbackNode = body.get("callbacks");
        if (callbackNode != null && !callbackNode.isNull()) {
            if (!callbackNode.isObject()) {
                throw Pgvs3Exception.invalidRequest("'callbacks' must be an object", "callbacks");
            }
            for (Map.Entry<String, JsonNode> callback : callbackNode.properties()) {
                callbacks.put(callback.getKey(), parse(callback.getValue(), "callbacks." + callback.getKey()));
            }
        }
        Map<String, Object> workflow = workflows.create(type, JsonFields.optionalString(body, "name"), nodes, callbacks);
        return ResponseEntity.status(HttpStatus.CREATED).body(Map.of("workflow", workflow));
    }

    @GetMapping("/ojs/v1/workflows")
    public Map<String, Object> list(@RequestParam(defaultValue = "50") int limit,
            @RequestParam(defaultValue = "0") int offset) {
        if (limit < 1 || limit > MAX_LIMIT) {
            throw Pgvs3Exception.invalidRequest("limit must be between 1 and " + MAX_LIMIT, "limit");
        }
        if (offset < 0) {
            throw Pgvs3Exception.invalidRequest("offset must not be negative", "offset");
        }
        List<Map<String, Object>> page = workflows.list(limit, offset);
        long total = workflows.count();
        Map<String, Object> pagination = new LinkedHashMap<>();
        pagination.put("total", total);
        pagination.put("limit", limit);
        pagination.put("offset", offset);
        pagination.put("has_more", offset + page.size() < total);
        return Map.of("workflows", page, "pagination", pagination);
    }

    @GetMapping("/ojs/v1/workflows/{id}")
    public Map<String, Object> get(@PathVariable String id) {
        return Map.of("workflow", workflows.get(id).orElseThrow(() -> Pgvs3Exception.notFound("workflow " + id + " not found")));
    }

    @DeleteMapping("/ojs/v1/workflows/{id}")
    public Map<String, Object> cancel(@PathVariable String id) {
        return Map.of("workflow", workflows.cancel(id));
    }

    private static NewJob parse(JsonNode job, String where) {
        try {
            return JobRequests.parse(job.has("args") || !job.isObject() ? job : withEmptyArgs(job));
        }
        catch (Pgvs3Exception ex) {
            throw new Pgvs3Exception(ex.code(), where + ": " + ex.getMessage(), ex.details());
        }
    }

    private static JsonNode withEmptyArgs(JsonNode job) {
        ObjectNode copy = (ObjectNode) job.deepCopy();
        copy.putArray("args");
        return copy;
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
            if (dependency.isIntegralNumber()) {
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
