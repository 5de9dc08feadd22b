package io.pgvs3.spring.autoconfigure;

import io.pgvs3.spring.web.security.UnauthenticatedExposureException;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Explains a refusal to serve the HTTP API beyond loopback without a token, instead of a stack trace. */
class UnauthenticatedExposureFailureAnalyzer extends AbstractFailureAnalyzer<UnauthenticatedExposureException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, UnauthenticatedExposureException cause) {
        return new FailureAnalysis("pgvs3 would serve its HTTP API on " + cause.address()
                + " to anyone who can reach it: no API token is configured.",
                "Do one of the following:\n"
                        + "  - configure a token: pgvs3.security.tokens[0].name=ops,"
                        + " pgvs3.security.tokens[0].hash=sha256:<hex of the token's SHA-256>,"
                        + " pgvs3.security.tokens[0].scopes=admin (see docs/security.md)\n"
                        + "  - listen on loopback only: server.address=127.0.0.1 (and management.server.address=127.0.0.1"
                        + " when management.server.port is set)\n"
                        + "  - accept an open API on purpose: pgvs3.security.allow-anonymous=true",
                cause);
    }
}
