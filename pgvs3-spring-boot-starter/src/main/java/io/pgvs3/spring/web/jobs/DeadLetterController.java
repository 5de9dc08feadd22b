package io.pgvs3.spring.web.jobs;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.pgvs3.core.cluster.ClusterJobs;
import io.pgvs3.core.cluster.ClusterRouter;
import io.pgvs3.core.job.Job;
import io.pgvs3.spring.web.Pagination;

import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code GET /ojs/v1/dead-letter}, {@code POST /ojs/v1/dead-letter/{id}/retry} and
 * {@code DELETE /ojs/v1/dead-letter/{id}}.
 */
@RestController
public class DeadLetterController {

    static final int MAX_LIMIT = 1000;

    private final ClusterRouter router;
    private final ClusterJobs jobs;

    public DeadLetterController(ClusterRouter router) {
        this.router = router;
        this.jobs = new ClusterJobs(router);
    }

    @GetMapping("/ojs/v1/dead-letter")
    public Map<String, Object> list(@RequestParam(required = false) String queue,
            @RequestParam(defaultValue = "100") int limit, @RequestParam(defaultValue = "0") int offset) {
        Pagination.check(limit, offset, MAX_LIMIT);
        List<Job> page = jobs.deadLetter(queue, limit, offset);
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("jobs", page.stream().map(Job::envelope).toList());
        body.put("pagination", Map.of("limit", limit, "offset", offset, "has_more", page.size() == limit));
        return body;
    }

    @PostMapping("/ojs/v1/dead-letter/{id}/retry")
    public Map<String, Object> retry(@PathVariable String id) {
        return JobViews.job(router.onJobCluster(id, cluster -> cluster.deadLetters().retry(id)));
    }

    @DeleteMapping("/ojs/v1/dead-letter/{id}")
    public Map<String, Object> delete(@PathVariable String id) {
        router.onJobCluster(id, cluster -> cluster.deadLetters().delete(id));
        return Map.of("deleted", true, "job_id", id);
    }
}
