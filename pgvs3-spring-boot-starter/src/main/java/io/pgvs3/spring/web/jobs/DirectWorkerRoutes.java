package io.pgvs3.spring.web.jobs;

import java.lang.reflect.Method;
import java.util.Enumeration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

import jakarta.servlet.http.HttpServletRequest;
import io.pgvs3.spring.web.JsonBodyGuard;
import io.pgvs3.spring.web.OjsExceptionHandler;
import io.pgvs3.spring.web.OjsMediaTypes;
import io.pgvs3.spring.web.OjsResponseAdvice;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.context.ApplicationContext;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.http.converter.AbstractJacksonHttpMessageConverter;
import org.springframework.http.converter.HttpMessageConverter;
import org.springframework.http.server.RequestPath;
import org.springframework.web.bind.annotation.InitBinder;
import org.springframework.web.bind.annotation.ModelAttribute;
import org.springframework.web.bind.annotation.RequestMethod;
import org.springframework.web.filter.ServerHttpObservationFilter;
import org.springframework.web.method.ControllerAdviceBean;
import org.springframework.web.method.HandlerMethod;
import org.springframework.web.servlet.HandlerInterceptor;
import org.springframework.web.servlet.HandlerMapping;
import org.springframework.web.servlet.handler.AbstractHandlerMapping;
import org.springframework.web.servlet.mvc.method.RequestMappingInfo;
import org.springframework.web.servlet.mvc.method.annotation.RequestBodyAdvice;
import org.springframework.web.servlet.mvc.method.annotation.RequestMappingHandlerAdapter;
import org.springframework.web.servlet.mvc.method.annotation.ResponseBodyAdvice;
import org.springframework.web.servlet.mvc.method.annotation.RequestMappingHandlerMapping;
import org.springframework.web.util.ServletRequestPathUtils;

/**
 * Maps {@code POST /ojs/v1/workers/fetch} and {@code /ack} to {@link DirectWorkerRoute}s, ahead of the annotated
 * controllers' mapping, when the request is one whose answer through MVC is known in advance to be JSON written by
 * MVC's JSON converter: exactly the route's path, a plain JSON content type (no charset but UTF-8) and an
 * {@code Accept} header that is absent or a single JSON or any type. Every other request, and every request when the
 * application changes how these routes are answered (advice on their bodies, other JSON converters or mappers, API
 * versioning, its own worker controller), is left to MVC. The chain gets MVC's own interceptors and CORS handling, so
 * read-only mode and an application's interceptors apply as before.
 */
public final class DirectWorkerRoutes extends AbstractHandlerMapping {

    /** Before {@code RequestMappingHandlerMapping} (order 0). */
    public static final int ORDER = -1;

    public static final String FETCH = "/ojs/v1/workers/fetch";
    public static final String ACK = "/ojs/v1/workers/ack";

    private static final Logger log = LoggerFactory.getLogger(DirectWorkerRoutes.class);

    private static final Set<Class<?>> OWN_ADVICE = Set.of(JsonBodyGuard.class, OjsResponseAdvice.class,
            OjsExceptionHandler.class);

    private static final List<String> PLAIN_JSON = List.of("application/json", "application/json;charset=utf-8",
            "application/json; charset=utf-8", OjsMediaTypes.OJS_JSON_VALUE, OjsMediaTypes.OJS_JSON_VALUE
                    + ";charset=utf-8", OjsMediaTypes.OJS_JSON_VALUE + "; charset=utf-8");

    private static final List<String> PLAIN_ACCEPT = List.of("*/*", "application/json", OjsMediaTypes.OJS_JSON_VALUE);

    private final Map<String, DirectWorkerRoute> routes;
    private final JsonMapper mapper;

    private DirectWorkerRoutes(Map<String, DirectWorkerRoute> routes, JsonMapper mapper) {
        this.routes = routes;
        this.mapper = routes.isEmpty() ? null : mapper;
        setOrder(ORDER);
    }

    /**
     * The routes to serve directly, with the interceptors and CORS handling of MVC's {@code
     * requestMappingHandlerMapping}; none when something the application configured could make MVC answer them
     * differently.
     */
    public static DirectWorkerRoutes of(ApplicationContext context) {
        if (!context.containsBean("requestMappingHandlerMapping")
                || !context.containsBean("requestMappingHandlerAdapter")) {
            log.info("The worker fetch and ack routes go through Spring MVC's request mapping: no "
                    + "requestMappingHandlerMapping and requestMappingHandlerAdapter");
            return new DirectWorkerRoutes(Map.of(), null);
        }
        return of(context.getBean("requestMappingHandlerMapping", RequestMappingHandlerMapping.class),
                context.getBean("requestMappingHandlerAdapter", RequestMappingHandlerAdapter.class), context);
    }

    static DirectWorkerRoutes of(RequestMappingHandlerMapping mvc, RequestMappingHandlerAdapter adapter,
            ApplicationContext context) {
        String refusal = refusal(mvc, adapter, context);
        Map<String, DirectWorkerRoute> routes = new HashMap<>();
        if (refusal == null) {
            try {
                route(mvc, FETCH, WorkerController.class.getMethod("fetch", JsonNode.class), c -> c::fetch, routes);
                route(mvc, ACK, WorkerController.class.getMethod("ack", JsonNode.class), c -> c::ack, routes);
            }
            catch (NoSuchMethodException ex) {
                throw new IllegalStateException(ex);
            }
            if (routes.size() != 2) {
                refusal = "the worker routes are not mapped to pgvs3's WorkerController alone";
                routes.clear();
            }
        }
        if (refusal != null) {
            log.info("The worker fetch and ack routes go through Spring MVC's request mapping: {}", refusal);
        }
        DirectWorkerRoutes mapping = new DirectWorkerRoutes(Map.copyOf(routes), jsonMapper(adapter));
        mapping.setInterceptors((Object[]) mvc.getAdaptedInterceptors());
        if (mvc.getCorsConfigurationSource() != null) {
            mapping.setCorsConfigurationSource(mvc.getCorsConfigurationSource());
        }
        mapping.setCorsProcessor(mvc.getCorsProcessor());
        return mapping;
    }

    /** The mapper of MVC's JSON converter, to read these routes' bodies and write their answers; null if inactive. */
    public JsonMapper mapper() {
        return mapper;
    }

    private static JsonMapper jsonMapper(RequestMappingHandlerAdapter adapter) {
        return converter(adapter) instanceof AbstractJacksonHttpMessageConverter<?> jackson
                && jackson.getMapper() instanceof JsonMapper mapper ? mapper : null;
    }

    @Override
    protected void detectMappedInterceptors(List<HandlerInterceptor> mappedInterceptors) {
        // those of MVC's mapping, which include the mapped interceptors, are set instead
    }

    @Override
    protected Object getHandlerInternal(HttpServletRequest request) {
        if (routes.isEmpty() || !request.getMethod().equals("POST")) {
            return null;
        }
        RequestPath path = ServletRequestPathUtils.hasParsedRequestPath(request)
                ? ServletRequestPathUtils.getParsedRequestPath(request) : ServletRequestPathUtils.parseAndCache(request);
        DirectWorkerRoute route = routes.get(path.pathWithinApplication().value());
        if (route == null || !oneOf(request.getContentType(), PLAIN_JSON) || !plainAccept(request)) {
            return null;
        }
        // what the annotated controllers' mapping records of a match
        request.setAttribute(PATH_WITHIN_HANDLER_MAPPING_ATTRIBUTE, route.path());
        request.setAttribute(BEST_MATCHING_HANDLER_ATTRIBUTE, route);
        request.setAttribute(HandlerMapping.MATRIX_VARIABLES_ATTRIBUTE, Map.of());
        request.setAttribute(BEST_MATCHING_PATTERN_ATTRIBUTE, route.path());
        request.setAttribute(URI_TEMPLATE_VARIABLES_ATTRIBUTE, Map.of());
        ServerHttpObservationFilter.findObservationContext(request)
                .ifPresent(observation -> observation.setPathPattern(route.path()));
        return route;
    }

    private static boolean plainAccept(HttpServletRequest request) {
        Enumeration<String> accept = request.getHeaders(HttpHeaders.ACCEPT);
        if (accept == null || !accept.hasMoreElements()) {
            return true;
        }
        return oneOf(accept.nextElement(), PLAIN_ACCEPT) && !accept.hasMoreElements();
    }

    private static boolean oneOf(String value, List<String> plain) {
        if (value == null) {
            return false;
        }
        for (String candidate : plain) {
            if (candidate.equalsIgnoreCase(value)) {
                return true;
            }
        }
        return false;
    }

    private static void route(RequestMappingHandlerMapping mvc, String path, Method method,
            Function<WorkerController, Function<JsonNode, Map<String, Object>>> call,
            Map<String, DirectWorkerRoute> routes) {
        mvc.getHandlerMethods().forEach((info, handler) -> {
            if (handler.getMethod().equals(method) && onlyPostTo(info, path)) {
                HandlerMethod resolved = handler.createWithResolvedBean();
                if (resolved.getBean() instanceof WorkerController controller) {
                    routes.put(path, new DirectWorkerRoute(resolved, path, call.apply(controller)));
                }
            }
        });
    }

    private static boolean onlyPostTo(RequestMappingInfo info, String path) {
        return info.getPathPatternsCondition() != null
                && info.getPathPatternsCondition().getPatternValues().equals(Set.of(path))
                && info.getMethodsCondition().getMethods().equals(Set.of(RequestMethod.POST))
                && info.getParamsCondition().isEmpty() && info.getHeadersCondition().isEmpty()
                && info.getConsumesCondition().isEmpty() && info.getProducesCondition().isEmpty()
                && info.getVersionCondition().getVersion() == null && info.getCustomCondition() == null;
    }

    /** Why these routes must go through MVC, or null when nothing the application set up changes their answers. */
    private static String refusal(RequestMappingHandlerMapping mvc, RequestMappingHandlerAdapter adapter,
            ApplicationContext context) {
        if (mvc.getApiVersionStrategy() != null) {
            return "API versioning is configured";
        }
        if (!mvc.usesPathPatterns()) {
            return "request mapping does not use parsed path patterns";
        }
        HttpMessageConverter<?> converter = converter(adapter);
        if (jsonMapper(adapter) == null) {
            return "the first JSON converter is not Jackson's with a JsonMapper";
        }
        AbstractJacksonHttpMessageConverter<?> jackson = (AbstractJacksonHttpMessageConverter<?>) converter;
        if (!jackson.getMappersForType(JsonNode.class).isEmpty() || !jackson.getMappersForType(Map.class).isEmpty()) {
            return "the JSON converter has mappers registered by type";
        }
        for (ControllerAdviceBean advice : ControllerAdviceBean.findAnnotatedBeans(context)) {
            Class<?> type = advice.getBeanType();
            if (type == null || OWN_ADVICE.contains(type) || !advice.isApplicableToBeanType(WorkerController.class)) {
                continue;
            }
            if (RequestBodyAdvice.class.isAssignableFrom(type) || ResponseBodyAdvice.class.isAssignableFrom(type)
                    || !MethodIntrospector.selectMethods(type, (Method m) -> AnnotatedElementUtils.hasAnnotation(m,
                            ModelAttribute.class) || AnnotatedElementUtils.hasAnnotation(m, InitBinder.class)).isEmpty()) {
                return "controller advice " + type.getName() + " applies to the worker routes";
            }
        }
        return null;
    }

    /**
     * The converter MVC would read a JSON body with and write a JSON answer with, for both JSON media types; null
     * when they are not one converter.
     */
    private static HttpMessageConverter<?> converter(RequestMappingHandlerAdapter adapter) {
        HttpMessageConverter<?> chosen = null;
        for (MediaType type : List.of(MediaType.APPLICATION_JSON, OjsMediaTypes.OJS_JSON)) {
            HttpMessageConverter<?> reads = first(adapter, converter -> converter.canRead(JsonNode.class, type));
            HttpMessageConverter<?> writes = first(adapter, converter -> converter.canWrite(Map.class, type));
            if (reads == null || reads != writes || (chosen != null && chosen != reads)) {
                return null;
            }
            chosen = reads;
        }
        return chosen;
    }

    private static HttpMessageConverter<?> first(RequestMappingHandlerAdapter adapter,
            java.util.function.Predicate<HttpMessageConverter<?>> test) {
        for (HttpMessageConverter<?> converter : adapter.getMessageConverters()) {
            if (test.test(converter)) {
                return converter;
            }
        }
        return null;
    }
}
