package io.pgvs3.spring.autoconfigure;

import io.pgvs3.spring.cluster.ClusterConfigurationException;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Explains an invalid {@code pgvs3.clusters} configuration instead of a stack trace. */
class ClusterConfigurationFailureAnalyzer extends AbstractFailureAnalyzer<ClusterConfigurationException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, ClusterConfigurationException cause) {
        return new FailureAnalysis("pgvs3 cannot route queues to clusters: " + cause.getMessage(),
                "Fix pgvs3.clusters.<name>.*: every cluster needs a url; 'default' is the application's own"
                        + " DataSource and cannot be configured there; each queue name or pattern"
                        + " (lowercase letters, digits, '.', '-', and '*' for any run of characters) may be listed"
                        + " under one cluster only (see docs/scale-out.md).",
                cause);
    }
}
