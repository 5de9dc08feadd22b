package io.pgvs3.spring.web.jobs;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * How a workflow posted without {@code type} is run, as the Java and Python SDKs send every workflow: a list of
 * {@code steps}, each with a step {@code id} and the ids it {@code depends_on}. Such a list is a graph: a step runs
 * once the steps it depends on completed, and steps depending on nothing run at once (so a list without any
 * {@code depends_on}, the Java SDK's group, runs in parallel; a chain arrives with each step depending on the one
 * before). The batch callbacks of these SDKs are steps depending on every other step, marked by
 * {@code options.callback_type} (Python) or by a step id of {@code on_success}, {@code on_failure} or
 * {@code on_complete} (Java): when the other steps depend on nothing, the workflow is a batch with those callbacks, so
 * that {@code on_failure} and {@code on_complete} fire when a job fails, which no graph step would.
 */
record UntypedWorkflow(String type, List<JsonNode> steps, Map<String, JsonNode> callbacks) {

    static final Set<String> CALLBACKS = Set.of("on_success", "on_failure", "on_complete");

    static UntypedWorkflow of(JsonNode steps) {
        List<JsonNode> jobs = new ArrayList<>();
        List<JsonNode> marked = new ArrayList<>();
        for (JsonNode step : steps) {
            (callbackType(step) != null ? marked : jobs).add(step);
        }
        List<JsonNode> candidates = jobs.stream().filter(job -> isCallbackName(WorkflowController.stepName(job)))
                .toList();
        Set<String> jobNames = new HashSet<>();
        jobs.stream().filter(job -> !candidates.contains(job)).forEach(job -> jobNames.add(WorkflowController.stepName(job)));
        if (!candidates.isEmpty() && !jobNames.contains(null)
                && candidates.stream().allMatch(candidate -> dependsOn(candidate).containsAll(jobNames))) {
            jobs.removeAll(candidates);
            marked.addAll(candidates);
        }
        boolean parallel = jobs.stream().allMatch(job -> dependsOn(job).isEmpty());
        if (marked.isEmpty() || !parallel || jobs.isEmpty()) {
            return new UntypedWorkflow("graph", List.copyOf(steps.valueStream().toList()), Map.of());
        }
        Map<String, JsonNode> callbacks = new LinkedHashMap<>();
        for (JsonNode callback : marked) {
            String when = callbackType(callback) != null ? callbackType(callback) : WorkflowController.stepName(callback);
            if (callbacks.containsKey(when)) {
                return new UntypedWorkflow("graph", List.copyOf(steps.valueStream().toList()), Map.of());
            }
            callbacks.put(when, withoutStepFields(callback));
        }
        return new UntypedWorkflow("batch", jobs, callbacks);
    }

    /** {@link Set#of} sets refuse to be asked about null: a step without a name is no callback. */
    private static boolean isCallbackName(String name) {
        return name != null && CALLBACKS.contains(name);
    }

    private static String callbackType(JsonNode step) {
        JsonNode type = step.path("options").path("callback_type");
        return type.isString() && CALLBACKS.contains(type.stringValue()) ? type.stringValue() : null;
    }

    private static Set<String> dependsOn(JsonNode step) {
        Set<String> names = new HashSet<>();
        JsonNode dependsOn = step.get("depends_on");
        if (dependsOn != null && dependsOn.isArray()) {
            // an object or array names no step (asString would throw); the controller refuses it with a 400
            dependsOn.valueStream().filter(name -> !name.isContainer()).forEach(name -> names.add(name.asString()));
        }
        return names;
    }

    /** The callback's job: without the step's id, its dependencies and the callback marker in its options. */
    private static JsonNode withoutStepFields(JsonNode callback) {
        ObjectNode job = (ObjectNode) callback.deepCopy();
        job.remove(List.of("id", "depends_on"));
        if (job.get("options") instanceof ObjectNode options) {
            options.remove("callback_type");
        }
        return job;
    }
}
