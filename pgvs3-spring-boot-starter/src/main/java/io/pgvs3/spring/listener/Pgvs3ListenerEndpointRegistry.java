package io.pgvs3.spring.listener;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.context.ApplicationListener;
import org.springframework.context.SmartLifecycle;

/**
 * Holds every listener and handler container of the application, by id.
 * <p>
 * Containers start once the application is ready (never while the context is still refreshing), unless their
 * endpoint turned auto-startup off; they can be listed, started, stopped, paused, resumed and woken by id. When the
 * context closes, all containers stop together: fetching stops, in-flight work gets the shutdown timeout to finish,
 * and what is left is released.
 */
public class Pgvs3ListenerEndpointRegistry implements SmartLifecycle, ApplicationListener<ApplicationReadyEvent> {

    private static final Logger log = LoggerFactory.getLogger(Pgvs3ListenerEndpointRegistry.class);

    private final Pgvs3ListenerContainerFactory factory;
    private final Duration shutdownTimeout;
    private final Map<String, Pgvs3ListenerContainer> containers = new LinkedHashMap<>();
    private final Set<String> autoStartup = new java.util.HashSet<>();
    private volatile boolean running;
    private volatile boolean ready;
    private volatile boolean started;

    public Pgvs3ListenerEndpointRegistry(Pgvs3ListenerContainerFactory factory, Duration shutdownTimeout) {
        this.factory = factory;
        this.shutdownTimeout = shutdownTimeout;
    }

    public synchronized void registerStreamListener(StreamListenerEndpoint endpoint) {
        Pgvs3ListenerContainerFactory builder = endpoint.containerFactory() != null ? endpoint.containerFactory()
                : factory;
        add(builder.createStreamContainer(endpoint), endpoint.autoStartup());
    }

    /** Registers all job handlers; those of one queue share a container with id {@code jobs.<queue>}. */
    public synchronized void registerJobHandlers(Collection<JobHandlerEndpoint> endpoints) {
        Map<String, List<JobHandlerEndpoint>> byQueue = new LinkedHashMap<>();
        for (JobHandlerEndpoint endpoint : endpoints) {
            byQueue.computeIfAbsent(endpoint.queue(), queue -> new ArrayList<>()).add(endpoint);
        }
        byQueue.forEach((queue, handlers) -> {
            String id = "jobs." + queue;
            boolean start = handlers.stream().anyMatch(JobHandlerEndpoint::autoStartup);
            List<Pgvs3ListenerContainerFactory> factories = handlers.stream()
                    .map(handler -> handler.containerFactory() != null ? handler.containerFactory() : factory)
                    .distinct().toList();
            if (factories.size() > 1) {
                throw new IllegalStateException("The @JobHandler methods of queue " + queue + " share one container "
                        + "and so must name the same containerFactory");
            }
            add(factories.get(0).createJobContainer(id, queue, handlers), start);
        });
    }

    private void add(Pgvs3ListenerContainer container, boolean start) {
        if (containers.containsKey(container.id())) {
            throw new IllegalStateException("Two pgvs3 listener containers have the id '" + container.id() + "'");
        }
        containers.put(container.id(), container);
        if (start) {
            autoStartup.add(container.id());
        }
        if (start && running && ready) {
            container.start();
        }
    }

    public synchronized Pgvs3ListenerContainer getContainer(String id) {
        return containers.get(id);
    }

    public synchronized List<Pgvs3ListenerContainer> getContainers() {
        return List.copyOf(containers.values());
    }

    public synchronized Set<String> getContainerIds() {
        return Set.copyOf(containers.keySet());
    }

    public void start(String id) {
        require(id).start();
    }

    public void stop(String id) {
        require(id).stop(shutdownTimeout);
    }

    public void pause(String id) {
        require(id).pause();
    }

    public void resume(String id) {
        require(id).resume();
    }

    /** Makes the container fetch at once instead of waiting for its next notification or poll. */
    public void wakeUp(String id) {
        require(id).wakeUp();
    }

    private Pgvs3ListenerContainer require(String id) {
        Pgvs3ListenerContainer container = getContainer(id);
        if (container == null) {
            throw new IllegalArgumentException("No pgvs3 listener container with id '" + id + "'; known: "
                    + getContainerIds());
        }
        return container;
    }

    @Override
    public void onApplicationEvent(ApplicationReadyEvent event) {
        List<Pgvs3ListenerContainer> starting;
        synchronized (this) {
            if (ready || !running) {
                return;
            }
            ready = true;
            starting = containers.values().stream().filter(c -> autoStartup.contains(c.id())).toList();
        }
        for (Pgvs3ListenerContainer container : starting) {
            container.start();
        }
        started = true;
        if (!starting.isEmpty()) {
            log.info("Started pgvs3 listener containers {}",
                    starting.stream().map(Pgvs3ListenerContainer::id).toList());
        }
    }

    @Override
    public synchronized void start() {
        running = true;
    }

    @Override
    public void stop() {
        stopAll();
    }

    @Override
    public void stop(Runnable callback) {
        try {
            stopAll();
        }
        finally {
            callback.run();
        }
    }

    private void stopAll() {
        List<Pgvs3ListenerContainer> stopping;
        synchronized (this) {
            running = false;
            ready = false;
            started = false;
            stopping = containers.values().stream().filter(Pgvs3ListenerContainer::isRunning).toList();
        }
        if (stopping.isEmpty()) {
            return;
        }
        List<String> ids = stopping.stream().map(Pgvs3ListenerContainer::id).toList();
        log.info("Stopping pgvs3 listener containers {} (shutdown timeout {})", ids, shutdownTimeout);
        long start = System.nanoTime();
        CompletableFuture<?>[] stops = stopping.stream()
                .map(container -> CompletableFuture.runAsync(() -> container.stop(shutdownTimeout),
                        runnable -> new Thread(runnable, "pgvs3-stop-" + container.id()).start()))
                .toArray(CompletableFuture[]::new);
        CompletableFuture.allOf(stops).join();
        log.info("Stopped pgvs3 listener containers {} in {} ms", ids,
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    /**
     * Whether the application is ready and the containers that start with it have started: false during startup,
     * until the {@code ApplicationReadyEvent} started them, and again from the moment shutdown begins.
     */
    public boolean isStarted() {
        return started;
    }

    /** Whether the container starts with the application (its endpoint did not turn auto-startup off). */
    public synchronized boolean isAutoStartup(String id) {
        return autoStartup.contains(id);
    }

    @Override
    public int getPhase() {
        return SmartLifecycle.DEFAULT_PHASE - 100;
    }
}
