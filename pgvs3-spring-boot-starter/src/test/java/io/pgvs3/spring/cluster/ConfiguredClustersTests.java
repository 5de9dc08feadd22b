package io.pgvs3.spring.cluster;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.pgvs3.core.cluster.QueueRoute;
import io.pgvs3.spring.autoconfigure.Pgvs3ClusterProperties;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The checks of {@code pgvs3.clusters} made before any pool is opened. */
class ConfiguredClustersTests {

    @Test
    void routesFollowTheConfigurationOrder() {
        Map<String, Pgvs3ClusterProperties> clusters = new LinkedHashMap<>();
        clusters.put("eu", cluster("jdbc:postgresql://eu/q", "orders-eu*", "audit"));
        clusters.put("us", cluster("jdbc:postgresql://us/q", "orders-*"));
        assertThat(ConfiguredClusters.routes(clusters)).containsExactly(new QueueRoute("orders-eu*", "eu"),
                new QueueRoute("audit", "eu"), new QueueRoute("orders-*", "us"));
    }

    @Test
    void aClusterCalledDefaultIsRefused() {
        assertThatThrownBy(() -> ConfiguredClusters.routes(Map.of("default", cluster("jdbc:postgresql://x/q", "a"))))
                .isInstanceOf(ClusterConfigurationException.class)
                .hasMessageContaining("pgvs3.clusters.default is configured, but 'default' is the application's own"
                        + " DataSource");
    }

    @Test
    void aClusterWithoutUrlIsRefused() {
        assertThatThrownBy(() -> ConfiguredClusters.routes(Map.of("b", cluster(null, "a"))))
                .isInstanceOf(ClusterConfigurationException.class).hasMessage("pgvs3.clusters.b.url is not set");
    }

    @Test
    void aNameListedTwiceUnderOneClusterIsOneRoute() {
        assertThat(ConfiguredClusters.routes(Map.of("b", cluster("jdbc:postgresql://x/q", "a", "a"))))
                .containsExactly(new QueueRoute("a", "b"));
    }

    private static Pgvs3ClusterProperties cluster(String url, String... queues) {
        Pgvs3ClusterProperties cluster = new Pgvs3ClusterProperties();
        cluster.setUrl(url);
        cluster.setQueues(List.of(queues));
        return cluster;
    }
}
