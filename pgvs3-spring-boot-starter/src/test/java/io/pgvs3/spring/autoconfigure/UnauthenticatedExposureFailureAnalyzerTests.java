package io.pgvs3.spring.autoconfigure;

import io.pgvs3.spring.web.security.UnauthenticatedExposureException;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.BeanCreationException;
import org.springframework.boot.diagnostics.FailureAnalysis;

import static org.assertj.core.api.Assertions.assertThat;

class UnauthenticatedExposureFailureAnalyzerTests {

    @Test
    void explainsTheThreeWaysOut() {
        BeanCreationException failure = new BeanCreationException("pgvs3AnonymousAccessPolicy", "failed",
                new UnauthenticatedExposureException("0.0.0.0"));
        FailureAnalysis analysis = new UnauthenticatedExposureFailureAnalyzer().analyze(failure);
        assertThat(analysis.getDescription()).contains("0.0.0.0").contains("no API token");
        assertThat(analysis.getAction()).contains("pgvs3.security.tokens[0].hash=sha256:")
                .contains("server.address=127.0.0.1").contains("pgvs3.security.allow-anonymous=true");
    }
}
