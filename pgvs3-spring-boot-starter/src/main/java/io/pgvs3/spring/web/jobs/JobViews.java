package io.pgvs3.spring.web.jobs;

import java.util.LinkedHashMap;
import java.util.Map;

import io.pgvs3.core.job.Job;

/** Response bodies of the job routes. */
final class JobViews {

    private JobViews() {
    }

    static Map<String, Object> job(Job job) {
        return Map.of("job", job.envelope());
    }

    /**
     * The answer to an ack or nack: the job's envelope fields at the top level (id, state, attempt, timestamps,
     * retry delay) for clients that read them there, the whole envelope under {@code job}, and
     * {@code acknowledged: true}.
     */
    static Map<String, Object> outcome(Job job) {
        Map<String, Object> body = new LinkedHashMap<>();
        job.envelope().properties().forEach(field -> body.put(field.getKey(), field.getValue()));
        body.put("acknowledged", true);
        body.put("job", job.envelope());
        return body;
    }
}
