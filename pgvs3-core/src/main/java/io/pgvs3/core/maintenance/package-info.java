/**
 * The maintenance pass: one schedule, one leader, every periodic task of the jobs and streams views.
 */
package io.pgvs3.core.maintenance;
