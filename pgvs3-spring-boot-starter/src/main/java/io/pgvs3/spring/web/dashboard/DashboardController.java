package io.pgvs3.spring.web.dashboard;

import java.util.LinkedHashMap;
import java.util.Map;

import org.springframework.core.io.ClassPathResource;
import org.springframework.core.io.Resource;
import org.springframework.http.CacheControl;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * The dashboard's page ({@code GET /dashboard/}, its static files are served from
 * {@code classpath:/io/pgvs3/dashboard/}) and {@code GET /dashboard/settings}, which tells the page whether the
 * server is read-only (then it shows no action) and where the API description lives.
 */
@RestController
public class DashboardController {

    static final String PATH = "/dashboard/";

    private final Resource page = new ClassPathResource("io/pgvs3/dashboard/index.html");
    private final DashboardSettings settings;

    public DashboardController(DashboardSettings settings) {
        this.settings = settings;
    }

    @GetMapping("/dashboard")
    public ResponseEntity<Void> redirect() {
        return ResponseEntity.status(302).header("Location", PATH).build();
    }

    @GetMapping(PATH)
    public ResponseEntity<Resource> page() {
        return ResponseEntity.ok().contentType(MediaType.TEXT_HTML).cacheControl(CacheControl.noCache()).body(page);
    }

    @GetMapping(PATH + "settings")
    public Map<String, Object> settings() {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("read_only", settings.readOnly());
        body.put("api_docs", settings.apiDocsPath());
        body.put("api_ui", settings.apiUiPath());
        return body;
    }

    /**
     * What the page needs to know of the server.
     *
     * @param readOnly    whether the routes refuse every write (then the page hides its actions)
     * @param apiDocsPath path of the OpenAPI description, or null when none is served
     * @param apiUiPath   path of the API's interactive page, or null when none is served
     */
    public record DashboardSettings(boolean readOnly, String apiDocsPath, String apiUiPath) {
    }
}
