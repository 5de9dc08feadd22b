package io.pgvs3.server;

import java.util.Map;

import jakarta.servlet.RequestDispatcher;
import jakarta.servlet.http.HttpServletRequest;
import io.pgvs3.spring.web.OjsErrorBody;
import io.pgvs3.spring.web.OjsErrorResponses;

import org.springframework.boot.webmvc.error.ErrorController;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * Renders errors that happen outside any controller (the servlet container's error dispatch) as OJS error bodies
 * instead of a whitelabel page.
 */
@RestController
public class ServerErrorController implements ErrorController {

    @RequestMapping("${server.error.path:/error}")
    public ResponseEntity<OjsErrorBody> error(HttpServletRequest request) {
        Object status = request.getAttribute(RequestDispatcher.ERROR_STATUS_CODE);
        int code = status instanceof Integer value ? value : 500;
        return OjsErrorResponses.of(StatusErrorCodes.of(code), StatusErrorCodes.message(code), Map.of(), request);
    }
}
