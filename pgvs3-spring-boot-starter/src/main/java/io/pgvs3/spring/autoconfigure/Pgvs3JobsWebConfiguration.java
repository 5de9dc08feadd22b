package io.pgvs3.spring.autoconfigure;

import io.pgvs3.core.job.CronStore;
import io.pgvs3.core.job.JobStore;
import io.pgvs3.core.job.WorkflowStore;
import io.pgvs3.spring.core.Pgvs3Metrics;
import io.pgvs3.spring.web.jobs.CronController;
import io.pgvs3.spring.web.jobs.DeadLetterController;
import io.pgvs3.spring.web.jobs.JobController;
import io.pgvs3.spring.web.jobs.JobEventController;
import io.pgvs3.spring.web.jobs.JobEventStreamController;
import io.pgvs3.spring.web.jobs.JobQueueController;
import io.pgvs3.spring.web.jobs.WorkerController;
import io.pgvs3.spring.web.jobs.WorkflowController;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Controllers of the jobs view's HTTP routes.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnBean(JobStore.class)
class Pgvs3JobsWebConfiguration {

    @Bean
    JobController pgvs3JobController(JobStore store,
            ObjectProvider<Pgvs3Metrics> metrics) {
        return new JobController(store, metrics.getIfAvailable(() -> Pgvs3Metrics.NOOP));
    }

    @Bean
    WorkerController pgvs3WorkerController(JobStore store) {
        return new WorkerController(store);
    }

    @Bean
    DeadLetterController pgvs3DeadLetterController(JobStore store) {
        return new DeadLetterController(store);
    }

    @Bean
    JobEventController pgvs3JobEventController(JobStore store, Pgvs3JsonMapper json) {
        return new JobEventController(store, json.mapper());
    }

    @Bean
    JobQueueController pgvs3JobQueueController(JobStore store) {
        return new JobQueueController(store);
    }

    @Bean
    JobEventStreamController pgvs3JobEventStreamController(JobStore store) {
        return new JobEventStreamController(store);
    }

    @Bean
    CronController pgvs3CronController(CronStore crons) {
        return new CronController(crons);
    }

    @Bean
    WorkflowController pgvs3WorkflowController(WorkflowStore workflows) {
        return new WorkflowController(workflows);
    }

}
