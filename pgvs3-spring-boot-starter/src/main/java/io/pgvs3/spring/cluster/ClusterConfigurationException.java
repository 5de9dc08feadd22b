package io.pgvs3.spring.cluster;

/** {@code pgvs3.clusters} is invalid, or one of its clusters cannot be set up; startup stops. */
public class ClusterConfigurationException extends IllegalStateException {

    public ClusterConfigurationException(String message) {
        super(message);
    }

    public ClusterConfigurationException(String message, Throwable cause) {
        super(message, cause);
    }
}
