package org.parallelexport.iceberg;

import java.util.HashMap;
import java.util.Map;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.iceberg.rest.auth.OAuth2Properties;

/**
 * Catalogs: an Iceberg catalog from a foreign server's and user mapping's options.
 *
 * <p>Two kinds, as issue 39 asks: a REST catalog (a {@code uri}), and Iceberg's JDBC catalog (a
 * JDBC URL; PostgreSQL itself when the server has no {@code uri}). Option names are the foreign
 * server's (underscores); each maps to the property Iceberg's own client reads, so what the REST
 * specification's clients accept (OAuth2 credential or token, its token endpoint and scope, a
 * prefix, extra {@code header.NAME} headers) passes through unchanged. File IO is {@link
 * LocalFileIO} unless {@code io_impl} names another: Iceberg's default would load Hadoop.
 */
public final class Catalogs {
  /** Foreign-server option names, and the Iceberg catalog property each becomes. */
  private static final Map<String, String> PROPERTIES =
      Map.of(
          "uri", CatalogProperties.URI,
          "warehouse", CatalogProperties.WAREHOUSE_LOCATION,
          "credential", OAuth2Properties.CREDENTIAL,
          "token", OAuth2Properties.TOKEN,
          "oauth2_server_uri", OAuth2Properties.OAUTH2_SERVER_URI,
          "scope", OAuth2Properties.SCOPE,
          "prefix", "prefix",
          "io_impl", CatalogProperties.FILE_IO_IMPL);

  private static final String HEADER_PREFIX = "header.";

  private Catalogs() {}

  /** A REST catalog named {@code name}; {@code options} must hold {@code uri}. */
  public static RESTCatalog rest(String name, Map<String, String> options) {
    Map<String, String> properties = properties(options);
    if (!properties.containsKey(CatalogProperties.URI)) {
      throw new IllegalArgumentException("a REST catalog needs the option \"uri\"");
    }
    RESTCatalog catalog = new RESTCatalog();
    catalog.initialize(name, properties);
    return catalog;
  }

  /**
   * Iceberg's JDBC catalog named {@code name} on {@code jdbcUrl}: its tables ({@code
   * iceberg_tables}, {@code iceberg_namespace_properties}) hold each table's metadata pointer under
   * {@code catalog_name = name}. {@code options} must hold {@code warehouse}; {@code jdbc.user},
   * {@code jdbc.password} and other {@code jdbc.} properties pass to the driver.
   */
  public static JdbcCatalog jdbc(String name, String jdbcUrl, Map<String, String> options) {
    Map<String, String> properties = properties(options);
    if (!properties.containsKey(CatalogProperties.WAREHOUSE_LOCATION)) {
      throw new IllegalArgumentException("a JDBC catalog needs the option \"warehouse\"");
    }
    properties.put(CatalogProperties.URI, jdbcUrl);
    JdbcCatalog catalog = new JdbcCatalog();
    catalog.initialize(name, properties);
    return catalog;
  }

  private static Map<String, String> properties(Map<String, String> options) {
    Map<String, String> properties = new HashMap<>();
    properties.put(CatalogProperties.FILE_IO_IMPL, LocalFileIO.class.getName());
    for (Map.Entry<String, String> option : options.entrySet()) {
      String key = option.getKey();
      String property = PROPERTIES.get(key);
      if (property != null) {
        properties.put(property, option.getValue());
      } else if (key.startsWith(HEADER_PREFIX) || key.startsWith("jdbc.")) {
        properties.put(key, option.getValue());
      } else {
        throw new IllegalArgumentException(
            String.format("\"%s\" is not an option of an Iceberg catalog", key));
      }
    }
    return properties;
  }
}
