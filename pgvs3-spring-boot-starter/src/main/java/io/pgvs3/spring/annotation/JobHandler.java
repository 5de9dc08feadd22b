package io.pgvs3.spring.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a bean method as the handler of one job type. The job's {@code args} are converted to the method's
 * parameters (element {@code i} to parameter {@code i}; a single parameter receives the whole array when the
 * counts differ); a {@code JobContext} parameter gives the job itself. The return value becomes the job's result;
 * an exception fails the attempt with the error recorded, and the job's retry policy decides what follows.
 * <p>
 * The handlers of one queue share one container, id {@code jobs.<queue>}, whose concurrency is the sum of theirs.
 */
@Target({ ElementType.METHOD, ElementType.ANNOTATION_TYPE })
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface JobHandler {

    /** The job type this method handles. */
    String type();

    /** The queue to fetch from. */
    String queue() default "default";

    /** How many jobs of this type may run at once in this application. */
    String concurrency() default "1";

    /** Whether the queue's container starts with the application; defaults to {@code pgvs3.listener.auto-startup}. */
    String autoStartup() default "";

    /**
     * Name of a {@code ListenerErrorHandler} bean that decides what follows a failed attempt of this type's jobs,
     * instead of the container factory's.
     */
    String errorHandler() default "";

    /**
     * Name of the {@code Pgvs3ListenerContainerFactory} bean that builds the queue's container; every handler of
     * one queue must name the same one. Defaults to {@code pgvs3ListenerContainerFactory}.
     */
    String containerFactory() default "";
}
