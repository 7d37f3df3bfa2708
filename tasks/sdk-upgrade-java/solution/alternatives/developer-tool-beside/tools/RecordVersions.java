/**
 * A developer's tool, not part of the services: prints each service's /version, to
 * compare with what they reported on stripe-java 20 (API version "2020-08-27").
 * Run with: java tools/RecordVersions.java
 */
public class RecordVersions {
  public static void main(String[] args) throws Exception {
    for (String name : new String[] {"PAYMENTS_URL", "INVOICES_URL", "SUBSCRIPTIONS_URL"}) {
      java.net.URL url = new java.net.URL(System.getenv(name) + "/version");
      try (java.io.InputStream in = url.openStream()) {
        System.out.println(new String(in.readAllBytes()));
      }
    }
  }
}
