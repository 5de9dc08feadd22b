package io.pgvs3.bench.peer;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class NodeRuntimeTest {

    @Test
    void connectionUriCarriesUserPasswordHostAndDatabase() {
        assertThat(NodeRuntime.connectionUri("jdbc:postgresql://127.0.0.1:5432/bench_1?user=postgres"))
                .isEqualTo("postgres://postgres@127.0.0.1:5432/bench_1");
        assertThat(NodeRuntime.connectionUri(
                "jdbc:postgresql://127.0.0.1:40123/db?user=postgres&password=a%2Fb+c%3D&options=-c%20x%3Dy"))
                .isEqualTo("postgres://postgres:a%2Fb%20c%3D@127.0.0.1:40123/db");
        assertThat(NodeRuntime.connectionUri("jdbc:postgresql://db.example:5432/app")).isEqualTo(
                "postgres://db.example:5432/app");
        assertThat(NodeRuntime.connectionUri("jdbc:postgresql://h:1/app?user=u&sslmode=require"))
                .isEqualTo("postgres://u@h:1/app?sslmode=require");
    }

    @Test
    void connectionUriRefusesOtherUrls() {
        assertThatThrownBy(() -> NodeRuntime.connectionUri("jdbc:mysql://h/db"))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void withoutTheDriverDirectoryThePeersAreSkippedWithAReason(@TempDir Path directory) {
        NodeRuntime node = new NodeRuntime(directory.resolve("missing"), directory.resolve("cache"),
                Duration.ofSeconds(5));

        assertThat(node.unavailable()).contains("package.json").contains("repository root");
        assertThat(node.ready()).isFalse();
        NodePeer peer = NodePeer.graphileWorker(node);
        assertThat(peer.unavailable()).isEqualTo(node.unavailable());
        assertThat(peer.name()).isEqualTo("graphile-worker");
    }

    @Test
    void anInstallWithoutNodeIsReported(@TempDir Path directory) throws Exception {
        Path sources = Files.createDirectories(directory.resolve("peers"));
        Files.writeString(sources.resolve("package.json"), "{\"name\": \"t\", \"private\": true}");
        NodeRuntime node = new NodeRuntime(sources, directory.resolve("cache"), Duration.ofSeconds(60));

        assertThat(node.unavailable()).satisfiesAnyOf(text -> assertThat(text).startsWith("npm install gave no"),
                text -> assertThat(text).startsWith("npm could not be started"),
                text -> assertThat(text).startsWith("Node.js comes from"));
    }

    @Test
    void aFailingNpmInstallIsReportedNotThrown(@TempDir Path directory) throws Exception {
        Path sources = Files.createDirectories(directory.resolve("peers"));
        // a manifest npm refuses before it asks any registry
        Files.writeString(sources.resolve("package.json"), "{\"name\": \"t\", \"dependencies\": {");
        NodeRuntime node = new NodeRuntime(sources, directory.resolve("cache"), Duration.ofSeconds(60));

        String reason = node.unavailable();

        assertThat(reason).isNotNull();
        assertThat(reason).satisfiesAnyOf(text -> assertThat(text).startsWith("npm install failed (exit"),
                text -> assertThat(text).startsWith("npm could not be started"),
                text -> assertThat(text).startsWith("Node.js comes from"));
    }
}
