package io.pgvs3.spring.web;

import java.io.IOException;
import java.util.Map;

import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import io.pgvs3.core.error.ErrorCode;
import io.pgvs3.core.error.Pgvs3Exception;

/** A request whose body (of unknown length, e.g. chunked) fails once it grows past a limit. */
final class BoundedBodyRequest extends HttpServletRequestWrapper {

    private final long limit;
    private ServletInputStream bounded;

    BoundedBodyRequest(HttpServletRequest request, long limit) {
        super(request);
        this.limit = limit;
    }

    @Override
    public ServletInputStream getInputStream() throws IOException {
        if (bounded == null) {
            bounded = new Bounded(super.getInputStream(), limit);
        }
        return bounded;
    }

    private static final class Bounded extends ServletInputStream {

        private final ServletInputStream delegate;
        private final long limit;
        private long read;

        Bounded(ServletInputStream delegate, long limit) {
            this.delegate = delegate;
            this.limit = limit;
        }

        @Override
        public int read() throws IOException {
            int b = delegate.read();
            if (b >= 0) {
                count(1);
            }
            return b;
        }

        @Override
        public int read(byte[] buffer, int offset, int length) throws IOException {
            int n = delegate.read(buffer, offset, length);
            if (n > 0) {
                count(n);
            }
            return n;
        }

        private void count(int n) {
            read += n;
            if (read > limit) {
                throw new Pgvs3Exception(ErrorCode.PAYLOAD_TOO_LARGE,
                        "request body exceeds the limit of " + limit + " bytes", Map.of("limit_bytes", limit));
            }
        }

        @Override
        public boolean isFinished() {
            return delegate.isFinished();
        }

        @Override
        public boolean isReady() {
            return delegate.isReady();
        }

        @Override
        public void setReadListener(ReadListener listener) {
            delegate.setReadListener(listener);
        }
    }
}
