package io.pgvs3.spring.autoconfigure;

import org.junit.jupiter.api.Test;

import io.pgvs3.spring.cluster.ClusterConfigurationException;

import org.springframework.beans.factory.BeanCreationException;
import org.springframework.boot.diagnostics.FailureAnalysis;

import static org.assertj.core.api.Assertions.assertThat;

class ClusterConfigurationFailureAnalyzerTests {

    @Test
    void explainsTheConfigurationErrorAndHowToFixIt() {
        ClusterConfigurationException cause = new ClusterConfigurationException(
                "queue name 'audit' is listed under two clusters: pgvs3.clusters.a.queues and pgvs3.clusters.b.queues");
        FailureAnalysis analysis = new ClusterConfigurationFailureAnalyzer()
                .analyze(new BeanCreationException("pgvs3Clusters", "failed", cause));
        assertThat(analysis.getDescription()).isEqualTo("pgvs3 cannot route queues to clusters: queue name 'audit'"
                + " is listed under two clusters: pgvs3.clusters.a.queues and pgvs3.clusters.b.queues");
        assertThat(analysis.getAction()).contains("pgvs3.clusters.<name>").contains("docs/scale-out.md");
    }
}
