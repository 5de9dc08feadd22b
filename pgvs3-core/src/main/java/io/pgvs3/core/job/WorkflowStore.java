package io.pgvs3.core.job;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;

import io.pgvs3.core.UuidV7;
import io.pgvs3.core.error.Pgvs3Exception;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Workflows ({@code s3p.workflows}): a {@code chain} runs its steps one after another and passes each step's result
 * to the next as {@code parent_results}, stopping at the first failure; a {@code group} runs its jobs at once; a
 * {@code batch} is a group with {@code on_success}, {@code on_failure} and {@code on_complete} callback jobs; a
 * {@code graph} runs each job once the jobs it {@code depends_on} completed. A workflow advances inside the
 * transaction of the ack or nack that finishes one of its jobs.
 */
public class WorkflowStore {

    static final String CREATE_SQL = "SELECT s3p.create_workflow(?, ?, ?, ?::jsonb, ?::jsonb)::text";

    static final String GET_SQL = "SELECT s3p.workflow_view(?)::text";

    static final String LIST_SQL = "SELECT s3p.workflow_view(id)::text FROM s3p.workflows"
            + " ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?";

    static final String COUNT_SQL = "SELECT count(*) FROM s3p.workflows";

    static final String CANCEL_SQL = "SELECT s3p.cancel_workflow(?)";

    public static final Set<String> TYPES = Set.of("chain", "group", "batch", "graph");
    public static final Set<String> CALLBACKS = Set.of("on_success", "on_failure", "on_complete");
    public static final int MAX_NODES = 1000;

    /** One job of a workflow and the indexes of the jobs it waits for. */
    public record Node(NewJob job, List<Integer> dependsOn) {
    }

    private final JdbcTemplate jdbc;
    private final JobStore jobs;
    private final JsonMapper mapper = JsonMapper.builder().build();

    public WorkflowStore(JdbcTemplate jdbc, JobStore jobs) {
        this.jdbc = jdbc;
        this.jobs = jobs;
    }

    /** Creates a workflow and enqueues its first jobs; answers its view (id, type, state, counts, jobs). */
    public Map<String, Object> create(String type, String name, List<Node> nodes, Map<String, NewJob> callbacks) {
        if (!TYPES.contains(type)) {
            throw Pgvs3Exception.invalidRequest("workflow type must be chain, group, batch or graph", "type");
        }
        if (nodes.isEmpty() || nodes.size() > MAX_NODES) {
            throw Pgvs3Exception.invalidRequest("a workflow has between 1 and " + MAX_NODES + " jobs", "jobs");
        }
        ArrayNode specs = mapper.createArrayNode();
        for (int i = 0; i < nodes.size(); i++) {
            Node node = nodes.get(i);
            List<Integer> dependsOn = "chain".equals(type) ? (i == 0 ? List.of() : List.of(i - 1))
                    : "graph".equals(type) ? node.dependsOn() : List.of();
            for (int dependency : dependsOn) {
                if (dependency < 0 || dependency >= nodes.size() || dependency == i) {
                    throw Pgvs3Exception.invalidRequest("job " + i + " cannot depend on job " + dependency, "depends_on");
                }
            }
            ObjectNode spec = specs.addObject();
            spec.set("spec", jobs.spec(node.job(), JobIds.generate(node.job().queue()).toString(), 1));
            spec.put("queue", node.job().queue().value());
            ArrayNode deps = spec.putArray("depends_on");
            dependsOn.forEach(deps::add);
        }
        if ("graph".equals(type)) {
            requireAcyclic(nodes.size(), specs);
        }
        ObjectNode callbackSpecs = mapper.createObjectNode();
        callbacks.forEach((when, job) -> {
            if (!CALLBACKS.contains(when)) {
                throw Pgvs3Exception.invalidRequest("callbacks are on_success, on_failure and on_complete", "callbacks");
            }
            ObjectNode callback = callbackSpecs.putObject(when);
            callback.set("spec", jobs.spec(job, JobIds.generate(job.queue()).toString(), 1));
            callback.put("queue", job.queue().value());
        });
        String view = jdbc.queryForObject(CREATE_SQL, String.class, UuidV7.generate(), type, name, specs.toString(), callbackSpecs.toString());
        return toMap(view);
    }

    public Optional<Map<String, Object>> get(String id) {
        Optional<UUID> uuid = uuid(id);
        if (uuid.isEmpty()) {
            return Optional.empty();
        }
        List<String> view = jdbc.queryForList(GET_SQL, String.class, uuid.get());
        return view.isEmpty() || view.get(0) == null ? Optional.empty() : Optional.of(toMap(view.get(0)));
    }

    /** Workflows, newest first, each as {@link #get(String)} shows it. */
    public List<Map<String, Object>> list(int limit, int offset) {
        return jdbc.queryForList(LIST_SQL, String.class, limit, offset)
                .stream().map(this::toMap).toList();
    }

    /** How many workflows are stored. */
    public long count() {
        Long count = jdbc.queryForObject(COUNT_SQL, Long.class);
        return count == null ? 0 : count;
    }

    /** Cancels a running workflow and its unfinished jobs; 404 if unknown, 409 if it already finished. */
    public Map<String, Object> cancel(String id) {
        UUID uuid = uuid(id).orElseThrow(() -> Pgvs3Exception.notFound("workflow " + id + " not found"));
        Boolean cancelled = jdbc.queryForObject(CANCEL_SQL, Boolean.class, uuid);
        Map<String, Object> view = get(id).orElseThrow(() -> Pgvs3Exception.notFound("workflow " + id + " not found"));
        if (!Boolean.TRUE.equals(cancelled)) {
            throw Pgvs3Exception.conflict("workflow " + id + " is " + view.get("state") + " and can no longer be cancelled");
        }
        return view;
    }

    private static void requireAcyclic(int size, ArrayNode specs) {
        int[] state = new int[size];
        for (int i = 0; i < size; i++) {
            visit(i, specs, state);
        }
    }

    private static void visit(int node, ArrayNode specs, int[] state) {
        if (state[node] == 2) {
            return;
        }
        if (state[node] == 1) {
            throw Pgvs3Exception.invalidRequest("the workflow's dependencies form a cycle", "depends_on");
        }
        state[node] = 1;
        specs.get(node).get("depends_on").forEach(dep -> visit(dep.asInt(), specs, state));
        state[node] = 2;
    }

    @SuppressWarnings("unchecked")
    private Map<String, Object> toMap(String json) {
        return mapper.readValue(json, Map.class);
    }

    private static Optional<UUID> uuid(String id) {
        try {
            return id != null && id.length() == 36 ? Optional.of(UUID.fromString(id)) : Optional.empty();
        }
        catch (IllegalArgumentException ex) {
            return Optional.empty();
        }
    }
}
