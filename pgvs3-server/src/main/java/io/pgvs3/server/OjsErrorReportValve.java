package io.pgvs3.server;

import java.io.IOException;
import java.io.Writer;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;

import io.pgvs3.core.error.ErrorCode;
import io.pgvs3.spring.web.OjsErrorBody;
import io.pgvs3.spring.web.OjsMediaTypes;
import org.apache.catalina.connector.Request;
import org.apache.catalina.connector.Response;
import org.apache.catalina.valves.ErrorReportValve;
import org.apache.coyote.ActionCode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Tomcat's last-resort error page as an OJS error body instead of HTML: it answers what Tomcat refuses before the
 * application sees the request (an encoded slash, bytes not allowed in a URL, headers too large, a bad
 * Content-Length) and any error nothing else wrote a body for.
 */
public class OjsErrorReportValve extends ErrorReportValve {

    private static final JsonMapper JSON = JsonMapper.builder().build();

    @Override
    protected void report(Request request, Response response, Throwable throwable) {
        int status = response.getStatus();
        if (status < 400 || response.getContentWritten() > 0 || !response.setErrorReported()) {
            return;
        }
        AtomicBoolean ioAllowed = new AtomicBoolean(true);
        response.getCoyoteResponse().action(ActionCode.IS_IO_ALLOWED, ioAllowed);
        if (!ioAllowed.get()) {
            return;
        }
        ErrorCode code = StatusErrorCodes.of(status);
        String requestId = "req_" + UUID.randomUUID();
        try {
            String body = JSON.writeValueAsString(OjsErrorBody.of(code, StatusErrorCodes.message(status), Map.of(),
                    requestId));
            response.setStatus(code.status());
            response.setContentType(OjsMediaTypes.OJS_JSON_VALUE);
            response.setCharacterEncoding("UTF-8");
            response.setHeader(OjsMediaTypes.VERSION_HEADER, OjsMediaTypes.VERSION);
            response.setHeader(OjsMediaTypes.REQUEST_ID_HEADER, requestId);
            Writer writer = response.getReporter();
            if (writer != null) {
                writer.write(body);
                response.finishResponse();
            }
        }
        catch (IOException | IllegalStateException ex) {
            // the connection is gone or the response already started: nothing more can be said
        }
    }
}
