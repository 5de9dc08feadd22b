package io.pgvs3.spring.web.security;

import java.util.ArrayList;
import java.util.List;

import io.pgvs3.core.job.JobPolicies;
import io.pgvs3.core.job.UniqueOptions;
import tools.jackson.databind.JsonNode;

import org.springframework.security.access.AccessDeniedException;

/** The queues a request body names, on the routes whose queue is in the body rather than in the path. */
final class QueueAccess {

    static final String DEFAULT_QUEUE = "default";

    private QueueAccess() {
    }

    static AccessDeniedException denied(ApiToken token, String queue) {
        return new AccessDeniedException("token '" + token.name() + "' may not use queue '" + queue + "'");
    }

    /** Whether the route at {@code path} names its queues in its body (POST only). */
    static boolean namesQueuesInBody(String path) {
        return path.equals("/ojs/v1/jobs") || path.equals("/ojs/v1/jobs/batch") || path.equals("/ojs/v1/workers/fetch")
                || path.equals("/ojs/v1/streams/ack") || path.equals("/ojs/v1/streams/nack");
    }

    /**
     * Routes whose body names queues in a way that is not checked: a token limited to queues may not use them. The
     * job events opt-in writes to a stream named in its body (or {@code <queue>.events}).
     */
    static boolean uncheckedBodyQueues(String path) {
        return path.equals("/ojs/v1/workflows") || path.equals("/ojs/v1/cron")
                || (path.startsWith("/ojs/v1/queues/") && path.endsWith("/job-events"));
    }

    /**
     * The queues named by a body of {@code path}, as the controllers read them; values of the wrong type are left
     * out, because the controller refuses them anyway.
     */
    static List<String> queues(String path, JsonNode body) {
        List<String> queues = new ArrayList<>();
        if (body == null || !body.isObject()) {
            return queues;
        }
        switch (path) {
            case "/ojs/v1/jobs" -> queues.add(jobQueue(body));
            case "/ojs/v1/jobs/batch" -> {
                JsonNode jobs = body.get("jobs");
                if (jobs != null && jobs.isArray()) {
                    jobs.forEach(job -> {
                        if (job.isObject()) {
                            queues.add(jobQueue(job));
                        }
                    });
                }
            }
            case "/ojs/v1/workers/fetch" -> {
                JsonNode named = body.get("queues");
                if (named != null && named.isArray() && !named.isEmpty()) {
                    named.forEach(queue -> {
                        if (queue.isString()) {
                            queues.add(queue.stringValue());
                        }
                    });
                }
                else {
                    JsonNode queue = body.get("queue");
                    queues.add(queue != null && queue.isString() ? queue.stringValue() : DEFAULT_QUEUE);
                }
            }
            case "/ojs/v1/streams/ack", "/ojs/v1/streams/nack" -> {
                JsonNode queue = body.get("queue");
                if (queue != null && queue.isString()) {
                    queues.add(queue.stringValue());
                }
            }
            default -> {
            }
        }
        return queues;
    }

    /**
     * The first job of an enqueue ({@code /ojs/v1/jobs}) or batch body whose unique policy spans every queue (its
     * dimensions leave out {@code queue}), or null. Such a policy finds, cancels or answers another queue's job, so a
     * token limited to queues may not send it. A policy the controller refuses anyway is left out.
     */
    static String queueSpanningUniquePolicy(String path, JsonNode body) {
        if (body == null || !body.isObject()) {
            return null;
        }
        List<JsonNode> jobs = new ArrayList<>();
        if (path.equals("/ojs/v1/jobs")) {
            jobs.add(body);
        }
        else if (path.equals("/ojs/v1/jobs/batch") && body.get("jobs") != null && body.get("jobs").isArray()) {
            body.get("jobs").forEach(jobs::add);
        }
        for (JsonNode job : jobs) {
            JsonNode options = job.isObject() ? job.get("options") : null;
            JsonNode unique = options != null && options.isObject() ? options.get("unique") : null;
            if (unique == null || unique.isNull()) {
                continue;
            }
            UniqueOptions policy;
            try {
                policy = JobPolicies.uniqueOptions(unique);
            }
            catch (RuntimeException ex) {
                continue;
            }
            if (policy.key() == null && !policy.keys().contains("queue")) {
                return jobQueue(job);
            }
        }
        return null;
    }

    private static String jobQueue(JsonNode job) {
        JsonNode options = job.get("options");
        if (options != null && options.isObject() && options.get("queue") != null && options.get("queue").isString()) {
            return options.get("queue").stringValue();
        }
        JsonNode queue = job.get("queue");
        return queue != null && queue.isString() ? queue.stringValue() : DEFAULT_QUEUE;
    }
}
