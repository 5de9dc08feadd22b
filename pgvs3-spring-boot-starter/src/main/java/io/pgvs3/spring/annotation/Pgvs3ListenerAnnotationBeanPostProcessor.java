package io.pgvs3.spring.annotation;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.pgvs3.spring.listener.JobHandlerEndpoint;
import io.pgvs3.spring.listener.ListenerErrorHandler;
import io.pgvs3.spring.listener.Pgvs3ListenerContainerFactory;
import io.pgvs3.spring.listener.Pgvs3ListenerEndpointRegistry;
import io.pgvs3.spring.listener.StreamListenerEndpoint;
import io.pgvs3.spring.listener.StreamMessageConverter;

import org.springframework.aop.support.AopUtils;
import org.springframework.beans.BeansException;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.beans.factory.config.ConfigurableBeanFactory;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.annotation.AnnotatedElementUtils;

/**
 * Finds {@link StreamListener} and {@link JobHandler} methods on beans and, once all singletons exist, registers
 * their endpoints with the {@link Pgvs3ListenerEndpointRegistry}, which builds the containers.
 */
public class Pgvs3ListenerAnnotationBeanPostProcessor
        implements BeanPostProcessor, BeanFactoryAware, SmartInitializingSingleton {

    private ConfigurableBeanFactory beanFactory;
    private Defaults defaults = new Defaults(true, 100);
    private final List<Found<StreamListener>> streamListeners = new ArrayList<>();
    private final List<Found<JobHandler>> jobHandlers = new ArrayList<>();

    @Override
    public void setBeanFactory(BeanFactory beanFactory) throws BeansException {
        this.beanFactory = (ConfigurableBeanFactory) beanFactory;
    }

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) throws BeansException {
        Class<?> targetClass = AopUtils.getTargetClass(bean);
        Map<Method, StreamListener> listeners = MethodIntrospector.selectMethods(targetClass,
                (MethodIntrospector.MetadataLookup<StreamListener>) method -> AnnotatedElementUtils
                        .findMergedAnnotation(method, StreamListener.class));
        Map<Method, JobHandler> handlers = MethodIntrospector.selectMethods(targetClass,
                (MethodIntrospector.MetadataLookup<JobHandler>) method -> AnnotatedElementUtils
                        .findMergedAnnotation(method, JobHandler.class));
        synchronized (this) {
            listeners.forEach((method, annotation) -> streamListeners.add(new Found<>(bean, method, annotation)));
            handlers.forEach((method, annotation) -> jobHandlers.add(new Found<>(bean, method, annotation)));
        }
        return bean;
    }

    @Override
    public void afterSingletonsInstantiated() {
        List<StreamListenerEndpoint> streams;
        List<JobHandlerEndpoint> jobs;
        defaults = beanFactory.getBeanProvider(Defaults.class).getIfAvailable(() -> defaults);
        synchronized (this) {
            streams = streamListeners.stream().map(this::streamEndpoint).toList();
            jobs = jobHandlers.stream().map(this::jobEndpoint).toList();
            streamListeners.clear();
            jobHandlers.clear();
        }
        if (streams.isEmpty() && jobs.isEmpty()) {
            return;
        }
        Pgvs3ListenerEndpointRegistry registry = beanFactory.getBean(Pgvs3ListenerEndpointRegistry.class);
        streams.forEach(registry::registerStreamListener);
        if (!jobs.isEmpty()) {
            registry.registerJobHandlers(jobs);
        }
    }

    private StreamListenerEndpoint streamEndpoint(Found<StreamListener> found) {
        StreamListener annotation = found.annotation();
        String queue = resolve(annotation.queue());
        String id = resolve(annotation.id());
        String consumer = resolve(annotation.consumer());
        if (consumer.isEmpty()) {
            consumer = id;
        }
        if (queue.isEmpty() || consumer.isEmpty()) {
            throw new IllegalStateException("@StreamListener on " + found.method()
                    + " needs a queue and a consumer (or an id to use as the consumer)");
        }
        if (id.isEmpty()) {
            id = queue + "." + consumer;
        }
        String converterName = resolve(annotation.converter());
        StreamMessageConverter converter = converterName.isEmpty() ? null
                : beanFactory.getBean(converterName, StreamMessageConverter.class);
        Pgvs3ListenerContainerFactory factory = factory(annotation.containerFactory());
        int defaultBatch = factory != null && factory.getMaxBatchSize() != null ? factory.getMaxBatchSize()
                : defaults.maxBatchSize();
        return new StreamListenerEndpoint(id, queue, consumer, resolveInt(annotation.concurrency(), 1, found),
                resolveBoolean(annotation.autoStartup(), defaults.autoStartup()), annotation.subscribe(),
                resolveInt(annotation.maxBatchSize(), defaultBatch, found), annotation.transactional(),
                found.bean(), found.method(), converter, errorHandler(annotation.errorHandler()), factory,
                startFrom(annotation.startFrom(), found));
    }

    private JobHandlerEndpoint jobEndpoint(Found<JobHandler> found) {
        JobHandler annotation = found.annotation();
        return new JobHandlerEndpoint(resolve(annotation.type()), resolve(annotation.queue()),
                resolveInt(annotation.concurrency(), 1, found),
                resolveBoolean(annotation.autoStartup(), defaults.autoStartup()), found.bean(), found.method(),
                errorHandler(annotation.errorHandler()), factory(annotation.containerFactory()));
    }

    private ListenerErrorHandler errorHandler(String name) {
        String resolved = resolve(name);
        return resolved.isEmpty() ? null : beanFactory.getBean(resolved, ListenerErrorHandler.class);
    }

    private Pgvs3ListenerContainerFactory factory(String name) {
        String resolved = resolve(name);
        return resolved.isEmpty() ? null : beanFactory.getBean(resolved, Pgvs3ListenerContainerFactory.class);
    }

    /** {@code latest} (or empty) is null, {@code earliest} is 0, a number is that tick. */
    private Long startFrom(String value, Found<?> found) {
        String resolved = resolve(value).toLowerCase(java.util.Locale.ROOT);
        if (resolved.isEmpty() || resolved.equals("latest")) {
            return null;
        }
        if (resolved.equals("earliest")) {
            return 0L;
        }
        try {
            long tick = Long.parseLong(resolved);
            if (tick < 1) {
                throw new NumberFormatException();
            }
            return tick;
        }
        catch (NumberFormatException ex) {
            throw new IllegalStateException("startFrom '" + resolved + "' on " + found.method()
                    + " is neither latest, earliest nor a tick id", ex);
        }
    }

    private String resolve(String value) {
        String resolved = beanFactory.resolveEmbeddedValue(value);
        return resolved == null ? "" : resolved.trim();
    }

    private int resolveInt(String value, int fallback, Found<?> found) {
        String resolved = resolve(value);
        if (resolved.isEmpty()) {
            return fallback;
        }
        try {
            return Integer.parseInt(resolved);
        }
        catch (NumberFormatException ex) {
            throw new IllegalStateException("'" + resolved + "' is not a number, on " + found.method(), ex);
        }
    }

    private boolean resolveBoolean(String value, boolean fallback) {
        String resolved = resolve(value);
        return resolved.isEmpty() ? fallback : Boolean.parseBoolean(resolved);
    }

    /**
     * Values used where an annotation leaves an attribute empty; a bean of this type overrides the built-in ones.
     *
     * @param autoStartup  whether containers start with the application
     * @param maxBatchSize the largest stream batch to receive
     */
    public record Defaults(boolean autoStartup, int maxBatchSize) {
    }

    private record Found<A>(Object bean, Method method, A annotation) {
    }
}
