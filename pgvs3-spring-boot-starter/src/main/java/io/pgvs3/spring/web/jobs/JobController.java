package io.pgvs3.spring.web.jobs;

import java.util.Map;

import io.pgvs3.core.error.Pgvs3Exception;
import io.pgvs3.core.job.Job;
import io.pgvs3.core.job.JobStore;
import tools.jackson.databind.JsonNode;

import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code POST /ojs/v1/jobs} (enqueue), {@code GET /ojs/v1/jobs/{id}} and {@code DELETE /ojs/v1/jobs/{id}} (cancel).
 */
@RestController
public class JobController {

    private final JobStore store;

    public JobController(JobStore store) {
        this.store = store;
    }

    @PostMapping("/ojs/v1/jobs")
    public ResponseEntity<Map<String, Object>> enqueue(@RequestBody(required = false) JsonNode body) {
        Job job = store.enqueue(JobRequests.parse(body));
        return ResponseEntity.status(HttpStatus.CREATED)
                .header("Location", "/ojs/v1/jobs/" + job.id())
                .body(JobViews.job(job));
    }

    @GetMapping("/ojs/v1/jobs/{id}")
    public Map<String, Object> get(@PathVariable String id) {
        return JobViews.job(store.get(id).orElseThrow(() -> Pgvs3Exception.notFound("job " + id + " not found")));
    }

    @DeleteMapping("/ojs/v1/jobs/{id}")
    public Map<String, Object> cancel(@PathVariable String id) {
        return JobViews.job(store.cancel(id));
    }
}
