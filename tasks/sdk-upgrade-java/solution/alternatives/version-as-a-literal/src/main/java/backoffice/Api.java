package backoffice;

import com.google.gson.Gson;
import com.google.gson.GsonBuilder;
import com.stripe.Stripe;
import com.stripe.StripeClient;
import com.stripe.exception.StripeException;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** What the three services share: the Stripe configuration, routing and JSON answers. */
final class Api {
  private static final Gson GSON = new GsonBuilder().serializeNulls().create();

  private Api() {}

  /** Answers one request from the path's captured parts; its result becomes the JSON body. */
  interface Handler {
    Object handle(List<String> params) throws Exception;
  }

  /** The API version stripe-java 33.3.0 sends (and the services use). */
  static final String API_VERSION = "2026-07-29.dahlia";

  /** A Stripe call whose 404 becomes the service's own 404 answer. */
  interface StripeCall<T> {
    T call() throws StripeException;
  }

  /** Thrown for an object Stripe does not know: answered 404 {"error": "not_found", "id"}. */
  static final class NotFound extends Exception {
    final String id;

    NotFound(String id) {
      super("not found: " + id);
      this.id = id;
    }
  }

  private record Route(Pattern pattern, Handler handler) {}

  /**
   * The Stripe client every service uses: stripe-java sends the API version it is pinned
   * to (Stripe.API_VERSION). The API key comes from STRIPE_SECRET_KEY; STRIPE_API_BASE,
   * when set, is where Stripe's API answers (e.g. http://127.0.0.1:12111).
   */
  static final StripeClient STRIPE = client();

  private static StripeClient client() {
    StripeClient.StripeClientBuilder builder = StripeClient.builder()
        .setApiKey(System.getenv().getOrDefault("STRIPE_SECRET_KEY", ""));
    String base = System.getenv("STRIPE_API_BASE");
    if (base != null && !base.isEmpty()) {
      builder.setApiBase(base.replaceAll("/+$", ""));
    }
    return builder.build();
  }

  static <T> T orNotFound(String id, StripeCall<T> call) throws StripeException, NotFound {
    try {
      return call.call();
    } catch (StripeException e) {
      if (e.getStatusCode() != null && e.getStatusCode() == 404) {
        throw new NotFound(id);
      }
      throw e;
    }
  }

  /** A JSON object whose keys keep the order given: object("a", 1, "b", 2). */
  static Map<String, Object> object(Object... pairs) {
    Map<String, Object> out = new LinkedHashMap<>();
    for (int i = 0; i < pairs.length; i += 2) {
      out.put((String) pairs[i], pairs[i + 1]);
    }
    return out;
  }

  /** Serves GET /healthz, GET /version and the routes on 127.0.0.1:$PORT. */
  static void serve(String service, int defaultPort, Map<String, Handler> routes)
      throws IOException {
    List<Route> table = new ArrayList<>();
    table.add(new Route(Pattern.compile("/healthz"), p -> object("status", "ok")));
    table.add(new Route(Pattern.compile("/version"), p -> object(
        "service", service, "stripe_sdk", Stripe.VERSION, "api_version", API_VERSION)));
    routes.forEach((path, handler) -> table.add(new Route(Pattern.compile(path), handler)));

    String port = System.getenv().getOrDefault("PORT", String.valueOf(defaultPort));
    HttpServer server = HttpServer.create(
        new InetSocketAddress("127.0.0.1", Integer.parseInt(port)), 0);
    server.createContext("/", exchange -> answer(exchange, table));
    server.setExecutor(Executors.newFixedThreadPool(8));
    server.start();
  }

  private static void answer(HttpExchange exchange, List<Route> table) throws IOException {
    int status = 404;
    Object body = object("error", "no_route");
    String path = exchange.getRequestURI().getPath();
    for (Route route : table) {
      Matcher match = route.pattern().matcher(path);
      if (!"GET".equals(exchange.getRequestMethod()) || !match.matches()) {
        continue;
      }
      List<String> params = new ArrayList<>();
      for (int i = 1; i <= match.groupCount(); i++) {
        params.add(match.group(i));
      }
      try {
        body = route.handler().handle(params);
        status = 200;
      } catch (NotFound e) {
        status = 404;
        body = object("error", "not_found", "id", e.id);
      } catch (Exception e) {
        status = 500;
        body = object("error", "internal", "message", String.valueOf(e));
      }
      break;
    }
    byte[] bytes = GSON.toJson(body).getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", "application/json");
    exchange.sendResponseHeaders(status, bytes.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }
}
