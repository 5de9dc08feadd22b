package io.pgvs3.server;

import org.apache.catalina.Container;
import org.apache.catalina.Valve;
import org.apache.catalina.core.StandardHost;
import org.apache.catalina.valves.ErrorReportValve;

import org.springframework.boot.tomcat.servlet.TomcatServletWebServerFactory;
import org.springframework.boot.web.server.WebServerFactoryCustomizer;
import org.springframework.core.Ordered;
import org.springframework.stereotype.Component;

/**
 * Puts {@link OjsErrorReportValve} in place of Tomcat's HTML error report valve (and of the one Spring Boot adds),
 * so that even requests refused before reaching the application are answered with the OJS error body.
 */
@Component
public class TomcatErrorReportCustomizer implements WebServerFactoryCustomizer<TomcatServletWebServerFactory>, Ordered {

    @Override
    public void customize(TomcatServletWebServerFactory factory) {
        factory.addContextCustomizers(context -> {
            Container host = context.getParent();
            for (Valve valve : host.getPipeline().getValves()) {
                if (valve instanceof ErrorReportValve) {
                    host.getPipeline().removeValve(valve);
                }
            }
            if (host instanceof StandardHost standardHost) {
                standardHost.setErrorReportValveClass(OjsErrorReportValve.class.getName());
            }
            host.getPipeline().addValve(new OjsErrorReportValve());
        });
    }

    @Override
    public int getOrder() {
        return Ordered.LOWEST_PRECEDENCE;
    }
}
