package io.pgvs3.server;

import java.nio.file.Path;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The embedded PostgreSQL the server starts when no {@code spring.datasource.url} is set.
 */
@ConfigurationProperties("pgvs3.embedded")
public class EmbeddedDatabaseProperties {

    /**
     * Where the embedded PostgreSQL keeps its data, and its generated superuser password (file
     * pgvs3-superuser-password); it survives restarts.
     */
    private Path dataDir = Path.of("pgvs3-data");

    /** TCP port on 127.0.0.1 for the embedded PostgreSQL; 0 picks a free one. */
    private int port = 0;

    /** OS user that runs PostgreSQL when the server runs as root (postgres if that user exists, else nobody). */
    private String osUser;

    public Path getDataDir() {
        return dataDir;
    }

    public void setDataDir(Path dataDir) {
        this.dataDir = dataDir;
    }

    public int getPort() {
        return port;
    }

    public void setPort(int port) {
        this.port = port;
    }

    public String getOsUser() {
        return osUser;
    }

    public void setOsUser(String osUser) {
        this.osUser = osUser;
    }
}
