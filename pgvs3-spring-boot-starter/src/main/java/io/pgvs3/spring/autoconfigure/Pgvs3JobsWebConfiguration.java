package io.pgvs3.spring.autoconfigure;

import io.pgvs3.core.job.JobStore;
import io.pgvs3.spring.web.jobs.DeadLetterController;
import io.pgvs3.spring.web.jobs.JobController;
import io.pgvs3.spring.web.jobs.JobErrorAdvice;
import io.pgvs3.spring.web.jobs.JobEventController;
import io.pgvs3.spring.web.jobs.WorkerController;

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
    JobController pgvs3JobController(JobStore store) {
        return new JobController(store);
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
    JobErrorAdvice pgvs3JobErrorAdvice() {
        return new JobErrorAdvice();
    }
}
