package io.pgvs3.spring.autoconfigure;

import java.time.Duration;
import java.util.List;

import io.pgvs3.core.cluster.Cluster;
import io.pgvs3.core.cluster.ClusterRouter;
import io.pgvs3.core.job.CronMaintenanceTask;
import io.pgvs3.core.job.JobStore;
import io.pgvs3.core.job.JobStoreSettings;
import io.pgvs3.core.maintenance.MaintenancePass;
import io.pgvs3.core.maintenance.MaintenanceTask;
import io.pgvs3.spring.cluster.ConfiguredClusters;
import io.pgvs3.spring.it.TestDataSource;
import io.pgvs3.spring.listener.Pgvs3ListenerContainerFactory;
import io.pgvs3.spring.web.jobs.CronController;
import io.pgvs3.spring.web.jobs.DeadLetterController;
import io.pgvs3.spring.web.jobs.JobController;
import io.pgvs3.spring.web.jobs.JobEventController;
import io.pgvs3.spring.web.jobs.JobEventStreamController;
import io.pgvs3.spring.web.jobs.JobQueueController;
import io.pgvs3.spring.web.jobs.WorkerController;
import io.pgvs3.spring.web.jobs.WorkflowController;
import io.pgvs3.spring.web.streams.ClusterLongPolls;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.mockito.Answers;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.core.annotation.Order;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.when;

/**
 * Every auto-configured bean a user could reasonably replace backs off for the user's bean, and the customizers
 * adjust the defaults without replacing them.
 */
class Pgvs3UserBeansAutoConfigurationTests {

    @RegisterExtension
    static final TestDataSource database = new TestDataSource();

    private final ApplicationContextRunner runner = Pgvs3TestRunners.runner(database, Pgvs3TestRunners.pgvs3());

    private final WebApplicationContextRunner web = Pgvs3TestRunners.web(database, Pgvs3TestRunners.pgvs3())
            .withPropertyValues("pgvs3.http.enabled=true");

    @Test
    void jobControllersBackOffForApplicationControllers() {
        for (Class<?> type : List.of(JobController.class, WorkerController.class, DeadLetterController.class,
                JobEventController.class, JobQueueController.class, JobEventStreamController.class,
                CronController.class, WorkflowController.class)) {
            replaces(web, type);
        }
    }

    @Test
    void clusterBeansBackOffForApplicationBeans() {
        replaces(web, ClusterLongPolls.class);
        ClusterRouter router = mock(ClusterRouter.class);
        when(router.defaultCluster()).thenReturn(mock(Cluster.class, Answers.RETURNS_DEEP_STUBS));
        runner.withPropertyValues("pgvs3.maintenance.enabled=false")
                .withBean("myRouter", ClusterRouter.class, () -> router)
                .withBean("myClusters", ConfiguredClusters.class, () -> mock(ConfiguredClusters.class))
                .run(context -> {
                    assertThat(context).getBean(ClusterRouter.class).isSameAs(context.getBean("myRouter"));
                    assertThat(context).getBean(ConfiguredClusters.class).isSameAs(context.getBean("myClusters"));
                });
    }

    @Test
    void anApplicationTaskReplacesTheDefaultTaskOfItsNameAndOthersRunAfterTheDefaults() {
        MaintenanceTask jobs = task("jobs");
        MaintenanceTask audit = task("audit");
        runner.withPropertyValues("pgvs3.maintenance.enabled=false")
                .withBean("myJobs", MaintenanceTask.class, () -> jobs)
                .withBean("myAudit", MaintenanceTask.class, () -> audit)
                .run(context -> {
                    List<MaintenanceTask> tasks = context.getBean(MaintenancePass.class).tasks();
                    assertThat(tasks.subList(0, 5)).extracting(MaintenanceTask::name).containsExactly("jobs",
                            "stream-retries", "stream-ticker", "stream-rotation", "stream-compaction");
                    assertThat(tasks.get(0)).isSameAs(jobs);
                    assertThat(tasks.subList(5, tasks.size())).extracting(MaintenanceTask::name)
                            .containsExactlyInAnyOrder("crons", "audit");
                    assertThat(tasks).contains(audit);
                });
        replaces(runner.withPropertyValues("pgvs3.maintenance.enabled=false"), CronMaintenanceTask.class);
    }

    private static MaintenanceTask task(String name) {
        MaintenanceTask task = mock(MaintenanceTask.class);
        when(task.name()).thenReturn(name);
        return task;
    }

    @Test
    void jobStoreSettingsComeFromPropertiesAndCustomizersInOrder() {
        runner.withPropertyValues("pgvs3.jobs.max-ack-batch=8", "pgvs3.jobs.default-visibility-timeout=1m")
                .withBean("second", JobStoreSettingsCustomizer.class, () -> new Halving())
                .withBean("first", JobStoreSettingsCustomizer.class,
                        () -> settings -> settings.withMaxAckBatch(settings.maxAckBatch() + 2))
                .run(context -> {
                    JobStoreSettings settings = context.getBean(JobStore.class).settings();
                    assertThat(settings.defaultVisibilityTimeout()).isEqualTo(Duration.ofMinutes(1));
                    // 8 / 2 + 2: the ordered customizer runs before the unordered one
                    assertThat(settings.maxAckBatch()).isEqualTo(6);
                });
    }

    @Test
    void jobStoreSettingsBackOffForApplicationSettings() {
        JobStoreSettings mine = JobStoreSettings.DEFAULTS.withMaxAckBatch(3);
        runner.withBean(JobStoreSettings.class, () -> mine)
                .run(context -> assertThat(context.getBean(JobStore.class).settings()).isSameAs(mine));
    }

    @Test
    void containerFactoryCustomizersAdjustTheDefaultFactory() {
        runner.withPropertyValues("pgvs3.listener.max-batch-size=7")
                .withBean(Pgvs3ListenerContainerFactoryCustomizer.class, () -> factory -> factory.setMaxBatchSize(9))
                .run(context -> {
                    Pgvs3ListenerContainerFactory factory = context.getBean(
                            Pgvs3ListenerAutoConfiguration.CONTAINER_FACTORY_BEAN_NAME,
                            Pgvs3ListenerContainerFactory.class);
                    assertThat(factory.getMaxBatchSize()).isEqualTo(9);
                });
    }

    private static <T> void replaces(ApplicationContextRunner runner, Class<T> type) {
        runner.withBean("mine", type, () -> mock(type)).run(context -> {
            assertThat(context).hasSingleBean(type);
            assertThat(context).getBean(type).isSameAs(context.getBean("mine"));
        });
    }

    private static <T> void replaces(WebApplicationContextRunner runner, Class<T> type) {
        runner.withBean("mine", type, () -> mock(type)).run(context -> {
            assertThat(context).as(type.getSimpleName()).hasSingleBean(type);
            assertThat(context).getBean(type).isSameAs(context.getBean("mine"));
        });
    }

    @Order(1)
    static final class Halving implements JobStoreSettingsCustomizer {

        @Override
        public JobStoreSettings customize(JobStoreSettings settings) {
            return settings.withMaxAckBatch(settings.maxAckBatch() / 2);
        }
    }
}
