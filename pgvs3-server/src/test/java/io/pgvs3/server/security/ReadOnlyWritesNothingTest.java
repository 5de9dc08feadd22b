package io.pgvs3.server.security;

import java.time.Duration;
import java.util.List;

import io.pgvs3.core.job.Job;
import io.pgvs3.core.job.JobStore;
import io.pgvs3.core.job.NewJob;
import io.pgvs3.core.maintenance.MaintenancePass;
import io.pgvs3.server.ServerTestSupport;
import io.pgvs3.spring.maintenance.MaintenanceScheduler;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.context.ApplicationContext;
import org.springframework.test.context.TestPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A read-only gateway runs no maintenance: a lease that has run out is left for the writable instances to expire.
 */
@TestPropertySource(properties = "pgvs3.http.read-only=true")
class ReadOnlyWritesNothingTest extends ServerTestSupport {

    @Autowired
    ApplicationContext context;

    @Autowired
    JobStore jobs;

    @Autowired
    MaintenancePass pass;

    @Test
    void anExpiredLeaseIsNotExpiredByAReadOnlyInstance() throws InterruptedException {
        assertThat(context.getBeansOfType(MaintenanceScheduler.class)).isEmpty();
        // the job is leased as a writable instance would do it (the routes of this one refuse to)
        Job job = jobs.enqueue(NewJob.builder("t").queue("leased").build());
        List<Job> fetched = jobs.fetch(List.of("leased"), 1, "worker-1", Duration.ofMillis(100));
        assertThat(fetched).extracting(Job::id).containsExactly(job.id());

        // twenty maintenance intervals (pgvs3.maintenance.interval=100ms in the tests) past the lease
        Thread.sleep(2_000);
        assertThat(http.get("/ojs/v1/jobs/" + job.id()).json().path("job").path("state").asString()).isEqualTo("active");

        // the pass a writable instance runs does expire it: the check above could fail
        pass.runOnce();
        assertThat(http.get("/ojs/v1/jobs/" + job.id()).json().path("job").path("state").asString()).isNotEqualTo("active");
    }
}
