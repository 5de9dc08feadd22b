package io.pgvs3.spring.autoconfigure;

import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.UnknownHostException;

import io.pgvs3.core.catalog.QueueCatalog;
import io.pgvs3.core.cluster.ClusterRouter;
import io.pgvs3.core.job.JobStore;
import io.pgvs3.core.notify.NotificationHub;
import io.pgvs3.core.stream.StreamStore;
import io.pgvs3.spring.annotation.Pgvs3ListenerAnnotationBeanPostProcessor;
import io.pgvs3.spring.listener.DefaultListenerErrorHandler;
import io.pgvs3.spring.listener.JobContainerSettings;
import io.pgvs3.spring.listener.JsonStreamMessageConverter;
import io.pgvs3.spring.listener.ListenerErrorHandler;
import io.pgvs3.spring.listener.Pgvs3ListenerContainerFactory;
import io.pgvs3.spring.listener.Pgvs3ListenerEndpointRegistry;
import io.pgvs3.spring.listener.PollingSettings;
import io.pgvs3.spring.listener.StreamMessageConverter;
import io.pgvs3.spring.metrics.Pgvs3Metrics;
import io.pgvs3.spring.support.Pgvs3JsonMapper;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Role;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.util.backoff.BackOff;
import org.springframework.util.backoff.ExponentialBackOff;

/**
 * {@code @StreamListener} and {@code @JobHandler} support: the annotation post-processor, the container factory
 * and the registry that starts containers once the application is ready and stops them gracefully.
 */
@AutoConfiguration(after = { Pgvs3AutoConfiguration.class, Pgvs3TemplateAutoConfiguration.class,
        DataSourceTransactionManagerAutoConfiguration.class })
@ConditionalOnBean(QueueCatalog.class)
public class Pgvs3ListenerAutoConfiguration {

    /** Bean name of the {@link BackOff} that spaces redeliveries of failed stream messages. */
    public static final String BACK_OFF_BEAN_NAME = "pgvs3ListenerBackOff";

    /** Bean name of the {@link ListenerErrorHandler} of listeners that do not name one. */
    public static final String ERROR_HANDLER_BEAN_NAME = "pgvs3ListenerErrorHandler";

    /** Bean name of the container factory of listeners that do not name one. */
    public static final String CONTAINER_FACTORY_BEAN_NAME = "pgvs3ListenerContainerFactory";

    @Bean
    @ConditionalOnMissingBean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    public static Pgvs3ListenerAnnotationBeanPostProcessor pgvs3ListenerAnnotationBeanPostProcessor() {
        return new Pgvs3ListenerAnnotationBeanPostProcessor();
    }

    @Bean
    @ConditionalOnMissingBean
    public Pgvs3ListenerAnnotationBeanPostProcessor.Defaults pgvs3ListenerDefaults(Pgvs3Properties properties) {
        return new Pgvs3ListenerAnnotationBeanPostProcessor.Defaults(properties.getListener().isAutoStartup(),
                properties.getListener().getMaxBatchSize());
    }

    @Bean(BACK_OFF_BEAN_NAME)
    @ConditionalOnMissingBean(name = BACK_OFF_BEAN_NAME)
    public BackOff pgvs3ListenerBackOff(Pgvs3Properties properties) {
        Pgvs3ListenerProperties.Retry retry = properties.getListener().getRetry();
        ExponentialBackOff backOff = new ExponentialBackOff(retry.getInitialInterval().toMillis(),
                retry.getMultiplier());
        backOff.setMaxInterval(retry.getMaxInterval().toMillis());
        return backOff;
    }

    /** The error handler of listeners that name none: retries with the back-off, dead-letters what it gives up on. */
    @Bean(ERROR_HANDLER_BEAN_NAME)
    @ConditionalOnMissingBean(name = ERROR_HANDLER_BEAN_NAME)
    public ListenerErrorHandler pgvs3ListenerErrorHandler(@Qualifier(BACK_OFF_BEAN_NAME) BackOff backOff) {
        return new DefaultListenerErrorHandler(backOff);
    }

    @Bean
    @ConditionalOnMissingBean
    public StreamMessageConverter pgvs3StreamMessageConverter(Pgvs3JsonMapper json) {
        return new JsonStreamMessageConverter(json.mapper());
    }

    @Bean(CONTAINER_FACTORY_BEAN_NAME)
    @ConditionalOnMissingBean(name = CONTAINER_FACTORY_BEAN_NAME)
    public Pgvs3ListenerContainerFactory pgvs3ListenerContainerFactory(Pgvs3Properties properties,
            ObjectProvider<StreamStore> streams, ObjectProvider<JobStore> jobs,
            ObjectProvider<NotificationHub> notifications,
            @Qualifier(ERROR_HANDLER_BEAN_NAME) ListenerErrorHandler errorHandler,
            ObjectProvider<PlatformTransactionManager> transactionManager, StreamMessageConverter converter,
            Pgvs3JsonMapper json, ObjectProvider<Pgvs3Metrics> metrics, ObjectProvider<ClusterRouter> router,
            ObjectProvider<Pgvs3ListenerContainerFactoryCustomizer> customizers) {
        Pgvs3ListenerProperties listener = properties.getListener();
        Pgvs3HandlerProperties handler = properties.getHandler();
        PollingSettings streamPolling = new PollingSettings(listener.isListen(), listener.getMinPollInterval(),
                listener.getMaxPollInterval(), listener.getListenPollInterval());
        PollingSettings jobPolling = new PollingSettings(listener.isListen(), listener.getMinPollInterval(),
                handler.getMaxPollInterval(), handler.getMaxPollInterval());
        JobContainerSettings jobSettings = new JobContainerSettings(handler.getVisibilityTimeout(),
                handler.getHeartbeatInterval(), handler.getPrefetch());
        String instanceId = listener.getInstanceId() != null && !listener.getInstanceId().isBlank()
                ? listener.getInstanceId() : defaultInstanceId();
        Pgvs3ListenerContainerFactory factory = new Pgvs3ListenerContainerFactory(streams::getIfAvailable,
                jobs::getIfAvailable, listener.isListen() ? notifications.getIfAvailable() : null, streamPolling,
                jobPolling, jobSettings, errorHandler, transactionManager.getIfUnique(), converter, json.mapper(),
                metrics.getIfAvailable(() -> Pgvs3Metrics.NOOP), instanceId);
        factory.setClusterRouter(router.getIfAvailable());
        customizers.orderedStream().forEach(customizer -> customizer.customize(factory));
        return factory;
    }

    @Bean
    @ConditionalOnMissingBean
    public Pgvs3ListenerEndpointRegistry pgvs3ListenerEndpointRegistry(
            @Qualifier(CONTAINER_FACTORY_BEAN_NAME) Pgvs3ListenerContainerFactory factory,
            Pgvs3Properties properties) {
        return new Pgvs3ListenerEndpointRegistry(factory, properties.getListener().getShutdownTimeout());
    }

    static String defaultInstanceId() {
        String host;
        try {
            host = InetAddress.getLocalHost().getHostName();
        }
        catch (UnknownHostException ex) {
            host = "localhost";
        }
        return host + "-" + ManagementFactory.getRuntimeMXBean().getPid();
    }
}
