package io.pgvs3.spring.autoconfigure;

import java.util.ArrayList;
import java.util.List;

/**
 * One entry of {@code pgvs3.clusters}: a further PostgreSQL database and the queues routed to it.
 */
public class Pgvs3ClusterProperties {

    /** JDBC URL of the cluster's database. */
    private String url;

    /** Login user of the cluster's database. */
    private String username;

    /** Login password of the cluster's database. */
    private String password;

    /** Largest number of connections of the cluster's pool (Hikari). */
    private int maximumPoolSize = 10;

    /**
     * Queues living on this cluster: queue names, or patterns in which '*' stands for any run of characters
     * (orders-*). Exact names are matched before patterns; patterns in the order configured.
     */
    private List<String> queues = new ArrayList<>();

    public String getUrl() {
        return url;
    }

    public void setUrl(String url) {
        this.url = url;
    }

    public String getUsername() {
        return username;
    }

    public void setUsername(String username) {
        this.username = username;
    }

    public String getPassword() {
        return password;
    }

    public void setPassword(String password) {
        this.password = password;
    }

    public int getMaximumPoolSize() {
        return maximumPoolSize;
    }

    public void setMaximumPoolSize(int maximumPoolSize) {
        this.maximumPoolSize = maximumPoolSize;
    }

    public List<String> getQueues() {
        return queues;
    }

    public void setQueues(List<String> queues) {
        this.queues = queues;
    }
}
