package io.pgvs3.spring.autoconfigure;

/**
 * Configuration under {@code pgvs3.dashboard.*}.
 */
public class Pgvs3DashboardProperties {

    /**
     * Whether the operator dashboard is served at /dashboard/ (needs pgvs3.http.enabled, since its pages read
     * and act through the HTTP routes under /ojs).
     */
    private boolean enabled = false;

    /** How many samples of each queue's job states and consumer lag the dashboard's history keeps. */
    private int historySize = 240;

    public boolean isEnabled() {
        return enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public int getHistorySize() {
        return historySize;
    }

    public void setHistorySize(int historySize) {
        this.historySize = historySize;
    }
}
