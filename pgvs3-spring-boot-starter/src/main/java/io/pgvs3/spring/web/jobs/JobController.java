package io.pgvs3.spring.web.jobs;

import java.util.List;
import java.util.Map;

import io.pgvs3.core.cluster.ClusterRouter;
import io.pgvs3.core.error.Pgvs3Exception;
import io.pgvs3.core.job.EnqueueOutcome;
import io.pgvs3.core.job.Job;
import io.pgvs3.core.job.JobRequests;
import io.pgvs3.core.job.NewJob;
import io.pgvs3.spring.metrics.Pgvs3Metrics;
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
 * An enqueue goes to its queue's cluster (a batch must stay on one); a job named by id is looked for on the default
 * cluster, then through the other clusters' job locators.
 */
@RestController
public class JobController {

    private final ClusterRouter router;
    private final Pgvs3Metrics metrics;

    public JobController(ClusterRouter router) {
        this(router, Pgvs3Metrics.NOOP);
    }

    public JobController(ClusterRouter router, Pgvs3Metrics metrics) {
        this.router = router;
        this.metrics = metrics;
    }

    /** 201 with the new job; 200 with the existing one when a unique job was ignored on conflict. */
    @PostMapping("/ojs/v1/jobs")
    public ResponseEntity<Map<String, Object>> enqueue(@RequestBody(required = false) JsonNode body) {
        NewJob parsed = JobRequests.parse(body);
        EnqueueOutcome outcome = router.forQueue(parsed.queue().value()).jobs().enqueueOrGet(parsed);
        Job job = outcome.job();
        if (outcome.created()) {
            metrics.enqueued(job.queue(), 1);
        }
        return ResponseEntity.status(outcome.created() ? HttpStatus.CREATED : HttpStatus.OK)
                .header("Location", "/ojs/v1/jobs/" + job.id())
                .body(JobViews.job(job));
    }

    /** Enqueues {@code {"jobs": [...]}} atomically: every job is validated first, and all are inserted or none. */
    @PostMapping("/ojs/v1/jobs/batch")
    public ResponseEntity<Map<String, Object>> enqueueBatch(@RequestBody(required = false) JsonNode body) {
        List<NewJob> parsed = JobRequests.parseBatch(body);
        List<Job> created = router.forBatch(parsed)
                .jobs().enqueueBatch(parsed);
        created.forEach(job -> metrics.enqueued(job.queue(), 1));
        return ResponseEntity.status(HttpStatus.CREATED)
                .body(Map.of("jobs", created.stream().map(Job::envelope).toList(), "count", created.size()));
    }

    @GetMapping("/ojs/v1/jobs/{id}")
    public Map<String, Object> get(@PathVariable String id) {
        return JobViews.job(router.findJob(id)
                .orElseThrow(() -> Pgvs3Exception.notFound("job " + id + " not found")));
    }

    @DeleteMapping("/ojs/v1/jobs/{id}")
    public Map<String, Object> cancel(@PathVariable String id) {
        return JobViews.job(router.withJob(id, jobs -> jobs.cancel(id)));
    }
}
