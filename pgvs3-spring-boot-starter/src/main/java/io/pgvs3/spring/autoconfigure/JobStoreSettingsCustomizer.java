package io.pgvs3.spring.autoconfigure;

import io.pgvs3.core.job.JobStoreSettings;

/**
 * Adjusts the {@link JobStoreSettings} built from {@code pgvs3.jobs.*} without replacing them. The settings are a
 * record, so a customizer returns the adjusted value (for example {@code settings.withMaxAckBatch(64)}); customizers
 * run in {@link org.springframework.core.annotation.Order order}, each seeing the result of the one before.
 */
@FunctionalInterface
public interface JobStoreSettingsCustomizer {

    JobStoreSettings customize(JobStoreSettings settings);
}
