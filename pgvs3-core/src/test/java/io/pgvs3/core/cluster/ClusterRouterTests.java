package io.pgvs3.core.cluster;

import java.util.List;
import java.util.Map;

import io.pgvs3.core.catalog.QueueCatalog;
import io.pgvs3.core.error.Pgvs3Exception;
import io.pgvs3.core.job.JobStore;
import io.pgvs3.core.notify.NotificationHub;
import io.pgvs3.core.stream.StreamStore;
import org.junit.jupiter.api.Test;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Routing decisions only: the clusters here point at no server, and nothing connects. */
class ClusterRouterTests {

    private final Cluster defaultCluster = cluster(Cluster.DEFAULT);
    private final Cluster eu = cluster("eu");
    private final Cluster us = cluster("us");

    @Test
    void withoutOtherClustersEveryQueueIsOnTheDefaultOne() {
        ClusterRouter router = ClusterRouter.single(defaultCluster);
        assertThat(router.isSingle()).isTrue();
        assertThat(router.forQueue("orders-eu")).isSameAs(defaultCluster);
        assertThat(router.forJob("not even an id")).isSameAs(defaultCluster);
        assertThat(router.forAll(List.of("a", "b"), "a batch")).isSameAs(defaultCluster);
    }

    @Test
    void exactNamesWinOverPatternsAndTheFirstMatchingPatternWins() {
        ClusterRouter router = new ClusterRouter(defaultCluster, List.of(eu, us), List.of(
                new QueueRoute("orders-*", "eu"), new QueueRoute("orders-us*", "us"), new QueueRoute("orders-usa", "us"),
                new QueueRoute("*.audit", "us")));
        assertThat(router.forQueue("orders-eu")).isSameAs(eu);
        assertThat(router.forQueue("orders-us-east")).isSameAs(eu);
        assertThat(router.forQueue("orders-usa")).isSameAs(us);
        assertThat(router.forQueue("billing.audit")).isSameAs(us);
        assertThat(router.forQueue("orders")).isSameAs(defaultCluster);
        assertThat(router.forQueue("default")).isSameAs(defaultCluster);
        assertThat(router.clusters()).containsExactly(defaultCluster, eu, us);
    }

    @Test
    void queuesAreGroupedByClusterInTheOrderOfTheFirstQueueEachHolds() {
        ClusterRouter router = new ClusterRouter(defaultCluster, List.of(eu), List.of(new QueueRoute("eu-*", "eu")));
        Map<Cluster, List<String>> grouped = router.byCluster(List.of("eu-a", "plain", "eu-b", "other"));
        assertThat(grouped.keySet()).containsExactly(eu, defaultCluster);
        assertThat(grouped.get(eu)).containsExactly("eu-a", "eu-b");
        assertThat(grouped.get(defaultCluster)).containsExactly("plain", "other");
    }

    @Test
    void whatMustStayOnOneClusterIsRefusedAcrossTwo() {
        ClusterRouter router = new ClusterRouter(defaultCluster, List.of(eu), List.of(new QueueRoute("eu-*", "eu")));
        assertThat(router.forAll(List.of("eu-a", "eu-b"), "a batch")).isSameAs(eu);
        assertThat(router.forAll(List.of(), "a batch")).isSameAs(defaultCluster);
        assertThatThrownBy(() -> router.forAll(List.of("eu-a", "plain"), "a batch"))
                .isInstanceOf(Pgvs3Exception.class)
                .hasMessage("a batch must stay on one cluster, but names queues on clusters 'eu' and 'default'"
                        + " (queue 'plain')");
    }

    @Test
    void badRoutesAreRefused() {
        assertThatIllegalArgumentException().isThrownBy(() -> new ClusterRouter(defaultCluster, List.of(eu),
                List.of(new QueueRoute("x", "nowhere")))).withMessageContaining("unknown cluster 'nowhere'");
        assertThatIllegalArgumentException().isThrownBy(() -> new ClusterRouter(defaultCluster, List.of(eu, us),
                List.of(new QueueRoute("x-*", "eu"), new QueueRoute("x-*", "us"))))
                .withMessage("queue pattern 'x-*' is routed to two clusters: 'eu' and 'us'");
        assertThatIllegalArgumentException().isThrownBy(() -> new ClusterRouter(defaultCluster,
                List.of(cluster(Cluster.DEFAULT)), List.of())).withMessageContaining("configured twice");
        assertThatIllegalArgumentException().isThrownBy(() -> new QueueRoute("Orders_*", "eu"))
                .withMessageContaining("not a queue name or pattern");
    }

    @Test
    void patternsMatchAnyRunOfCharacters() {
        assertThat(new QueueRoute("a*b*c", "eu").matches("abc")).isTrue();
        assertThat(new QueueRoute("a*b*c", "eu").matches("a-x-b-y-c")).isTrue();
        assertThat(new QueueRoute("a*b*c", "eu").matches("a-x-c")).isFalse();
        assertThat(new QueueRoute("*", "eu").matches("anything")).isTrue();
        assertThat(new QueueRoute("orders-*", "eu").matches("orders")).isFalse();
        assertThat(QueueRoute.isValidPattern("*-events")).isTrue();
        assertThat(QueueRoute.isValidPattern("-x")).isFalse();
        assertThat(QueueRoute.isValidPattern("")).isFalse();
    }

    private static Cluster cluster(String name) {
        DriverManagerDataSource dataSource = new DriverManagerDataSource("jdbc:postgresql://127.0.0.1:1/none");
        JdbcTemplate jdbc = new JdbcTemplate(dataSource);
        QueueCatalog catalog = new QueueCatalog(jdbc);
        return new Cluster(name, dataSource, catalog, new JobStore(jdbc, catalog), new StreamStore(jdbc, catalog),
                new NotificationHub(dataSource));
    }
}
