package io.pgvs3.embedded;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

class OsUserTest {

    @Test
    void filesRemovedWhileTheDirectoryIsWalkedAreSkipped(@TempDir Path data) throws IOException {
        Path base = Files.createDirectories(data.resolve("base/5"));
        for (int i = 0; i < 50; i++) {
            Files.writeString(base.resolve("1674" + i), "x");
        }
        Files.writeString(data.resolve("PG_VERSION"), "17");
        List<Path> visited = new ArrayList<>();
        // as a postmaster's shutdown checkpoint does: the first file reached removes the others of its directory,
        // after they were listed
        OsUser.forEachPresent(data, path -> {
            if (visited.stream().noneMatch(seen -> seen.getParent().equals(base)) && base.equals(path.getParent())) {
                try (var siblings = Files.list(base)) {
                    for (Path sibling : siblings.filter(sibling -> !sibling.equals(path)).toList()) {
                        Files.delete(sibling);
                    }
                }
            }
            Files.getLastModifiedTime(path);
            visited.add(path);
        });
        assertThat(visited).contains(data, data.resolve("base"), base, data.resolve("PG_VERSION"));
        assertThat(visited.stream().filter(path -> base.equals(path.getParent()))).hasSize(1);
    }
}
