package io.pgvs3.server;

import io.pgvs3.core.error.ErrorCode;

/** The OJS error code and message for an HTTP status the servlet container chose on its own. */
final class StatusErrorCodes {

    private StatusErrorCodes() {
    }

    static ErrorCode of(int status) {
        return switch (status) {
            case 400 -> ErrorCode.INVALID_REQUEST;
            case 404 -> ErrorCode.NOT_FOUND;
            case 405, 501 -> ErrorCode.METHOD_NOT_ALLOWED;
            case 406 -> ErrorCode.NOT_ACCEPTABLE;
            case 408 -> ErrorCode.REQUEST_TIMEOUT;
            case 413 -> ErrorCode.PAYLOAD_TOO_LARGE;
            case 415 -> ErrorCode.UNSUPPORTED_MEDIA_TYPE;
            // an HTTP version Tomcat does not speak is the client's mistake
            case 505 -> ErrorCode.INVALID_REQUEST;
            case 503 -> ErrorCode.UNAVAILABLE;
            default -> status >= 500 ? ErrorCode.INTERNAL : ErrorCode.INVALID_REQUEST;
        };
    }

    static String message(int status) {
        return switch (status) {
            case 400 -> "the request is malformed (request line, URL encoding, headers or body framing)";
            case 404 -> "no such route";
            case 405, 501 -> "the method is not allowed here";
            case 408 -> "the request did not arrive in time";
            case 413 -> "the request is too large";
            case 505 -> "the HTTP version is not supported; use HTTP/1.1";
            default -> "request failed with status " + status;
        };
    }
}
