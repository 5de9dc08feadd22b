package io.pgvs3.spring.autoconfigure;

import io.pgvs3.core.cluster.ClusterRouter;
import io.pgvs3.core.job.CronStore;
import io.pgvs3.core.job.JobStore;
import io.pgvs3.core.job.WorkflowStore;
import io.pgvs3.spring.metrics.Pgvs3Metrics;
import io.pgvs3.spring.support.Pgvs3JsonMapper;
import io.pgvs3.spring.web.jobs.CronController;
import io.pgvs3.spring.web.jobs.DeadLetterController;
import io.pgvs3.spring.web.jobs.DirectWorkerRouteAdapter;
import io.pgvs3.spring.web.jobs.DirectWorkerRoutes;
import io.pgvs3.spring.web.jobs.JobController;
import io.pgvs3.spring.web.jobs.JobEventController;
import io.pgvs3.spring.web.jobs.JobEventStreamController;
import io.pgvs3.spring.web.jobs.JobQueueController;
import io.pgvs3.spring.web.jobs.WorkerController;
import io.pgvs3.spring.web.jobs.WorkflowController;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Controllers of the jobs view's HTTP routes.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnBean(JobStore.class)
class Pgvs3JobsWebConfiguration {

    @Bean
    @ConditionalOnMissingBean
    JobController pgvs3JobController(ClusterRouter router, ObjectProvider<Pgvs3Metrics> metrics) {
        return new JobController(router, metrics.getIfAvailable(() -> Pgvs3Metrics.NOOP));
    }

    @Bean
    @ConditionalOnMissingBean
    WorkerController pgvs3WorkerController(ClusterRouter router) {
        return new WorkerController(router);
    }

    /** Fetch and ack served without MVC's argument resolution and converters; see {@link DirectWorkerRoutes}. */
    @Bean
    @ConditionalOnBooleanProperty(name = "pgvs3.http.direct-worker-routes", matchIfMissing = true)
    DirectWorkerRoutes pgvs3DirectWorkerRoutes(ApplicationContext context) {
        return DirectWorkerRoutes.of(context);
    }

    @Bean
    @ConditionalOnBooleanProperty(name = "pgvs3.http.direct-worker-routes", matchIfMissing = true)
    DirectWorkerRouteAdapter pgvs3DirectWorkerRouteAdapter(DirectWorkerRoutes routes) {
        return new DirectWorkerRouteAdapter(routes.mapper());
    }

    @Bean
    @ConditionalOnMissingBean
    DeadLetterController pgvs3DeadLetterController(ClusterRouter router) {
        return new DeadLetterController(router);
    }

    @Bean
    @ConditionalOnMissingBean
    JobEventController pgvs3JobEventController(ClusterRouter router, Pgvs3JsonMapper json) {
        return new JobEventController(router, json.mapper());
    }

    @Bean
    @ConditionalOnMissingBean
    JobQueueController pgvs3JobQueueController(ClusterRouter router) {
        return new JobQueueController(router);
    }

    @Bean
    @ConditionalOnMissingBean
    JobEventStreamController pgvs3JobEventStreamController(ClusterRouter router) {
        return new JobEventStreamController(router);
    }

    @Bean
    @ConditionalOnMissingBean
    CronController pgvs3CronController(CronStore crons) {
        return new CronController(crons);
    }

    @Bean
    @ConditionalOnMissingBean
    WorkflowController pgvs3WorkflowController(WorkflowStore workflows, ClusterRouter router) {
        return new WorkflowController(workflows, router);
    }

}
