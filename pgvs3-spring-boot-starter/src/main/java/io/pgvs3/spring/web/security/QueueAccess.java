package io.pgvs3.spring.web.security;

import java.util.ArrayList;
import java.util.List;

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
        return path.equals("/ojs/v1/jobs") || path.equals("/ojs/v1/jobs/batch") || path.equals("/ojs/v1/workers/fetch");
    }

    /** Routes whose body names queues in a way that is not checked: a token limited to queues may not use them. */
    static boolean uncheckedBodyQueues(String path) {
        return path.equals("/ojs/v1/workflows") || path.equals("/ojs/v1/cron");
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
            default -> {
            }
        }
        return queues;
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
