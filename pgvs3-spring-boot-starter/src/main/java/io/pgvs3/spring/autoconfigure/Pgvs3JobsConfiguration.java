package io.pgvs3.spring.autoconfigure;

import javax.sql.DataSource;

import io.pgvs3.core.Resettable;
import io.pgvs3.core.catalog.QueueCatalog;
import io.pgvs3.core.catalog.QueueName;
import io.pgvs3.core.cluster.Cluster;
import io.pgvs3.core.cluster.ClusterRouter;
import io.pgvs3.core.job.CronMaintenanceTask;
import io.pgvs3.core.job.CronStore;
import io.pgvs3.core.job.JobDeadLetters;
import io.pgvs3.core.job.JobEventLog;
import io.pgvs3.core.job.JobQueues;
import io.pgvs3.core.job.JobStore;
import io.pgvs3.core.job.JobStoreSettings;
import io.pgvs3.core.job.WorkflowStore;
import io.pgvs3.core.notify.NotificationHub;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Beans of the jobs view: the {@link JobStore} and the stores beside it (queue administration, dead letters, the
 * event log), the {@link CronStore}, the cron maintenance task and their part of the admin reset (the job
 * maintenance task is one of {@link io.pgvs3.spring.maintenance.QueueMaintenanceTasks}).
 */
@Configuration(proxyBeanMethods = false)
class Pgvs3JobsConfiguration {

    /** {@code pgvs3.jobs.*}, adjusted by the {@link JobStoreSettingsCustomizer} beans. */
    @Bean
    @ConditionalOnMissingBean
    JobStoreSettings pgvs3JobStoreSettings(Pgvs3Properties properties,
            ObjectProvider<JobStoreSettingsCustomizer> customizers) {
        Pgvs3JobsProperties jobs = properties.getJobs();
        JobStoreSettings settings = new JobStoreSettings(jobs.getDefaultVisibilityTimeout(), jobs.getRetention(),
                jobs.getDeadLetterRetention(), jobs.getEventRetention(), jobs.getMaxAckBatch(), jobs.getAckFlushers(),
                jobs.getMaintenanceBatch());
        for (JobStoreSettingsCustomizer customizer : customizers.orderedStream().toList()) {
            settings = customizer.customize(settings);
        }
        return settings;
    }

    @Bean
    @ConditionalOnMissingBean
    JobEventLog pgvs3JobEventLog(DataSource dataSource, QueueCatalog catalog) {
        return new JobEventLog(new JdbcTemplate(dataSource), catalog);
    }

    @Bean
    @ConditionalOnMissingBean
    JobStore pgvs3JobStore(DataSource dataSource, QueueCatalog catalog, JobStoreSettings settings, JobEventLog events,
            NotificationHub notifications) {
        return new JobStore(new JdbcTemplate(dataSource), catalog, settings, events, notifications);
    }

    @Bean
    @ConditionalOnMissingBean
    JobQueues pgvs3JobQueues(DataSource dataSource, QueueCatalog catalog, JobEventLog events) {
        return new JobQueues(new JdbcTemplate(dataSource), catalog, events);
    }

    @Bean
    @ConditionalOnMissingBean
    JobDeadLetters pgvs3JobDeadLetters(DataSource dataSource, JobEventLog events) {
        return new JobDeadLetters(new JdbcTemplate(dataSource), events);
    }

    /**
     * Opts the queues of {@code pgvs3.jobs.event-streams} in before any listener starts, so that a
     * {@code @StreamListener} of the stream subscribes before the first event it should see.
     */
    @Bean
    @ConditionalOnMissingBean(name = "pgvs3JobEventStreamsOptIn")
    SmartInitializingSingleton pgvs3JobEventStreamsOptIn(ClusterRouter router, Pgvs3Properties properties) {
        return () -> properties.getJobs().getEventStreams().forEach((queue, stream) -> {
            Cluster cluster = router.forQueue(queue);
            cluster.catalog().ensure(QueueName.of(queue));
            cluster.jobEvents().eventStreams().enable(queue, stream == null || stream.isBlank() ? null : stream);
        });
    }

    @Bean
    @ConditionalOnMissingBean
    CronStore pgvs3CronStore(DataSource dataSource, ClusterRouter router) {
        return new CronStore(new JdbcTemplate(dataSource), queue -> router.forQueue(queue).jobs());
    }

    @Bean
    @ConditionalOnMissingBean
    WorkflowStore pgvs3WorkflowStore(DataSource dataSource, JobStore jobs) {
        return new WorkflowStore(new JdbcTemplate(dataSource), jobs);
    }

    @Bean
    @ConditionalOnMissingBean
    CronMaintenanceTask pgvs3CronMaintenanceTask(CronStore crons) {
        return new CronMaintenanceTask(crons);
    }

    @Bean
    Resettable pgvs3JobsResettable(ClusterRouter router, CronStore crons) {
        return () -> {
            crons.deleteAll();
            router.clusters().forEach(cluster -> cluster.jobQueues().deleteAll());
        };
    }
}
