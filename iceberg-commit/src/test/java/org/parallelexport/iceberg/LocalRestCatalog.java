package org.parallelexport.iceberg;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.apache.iceberg.rest.RESTCatalogAdapter;
import org.apache.iceberg.rest.RESTCatalogServlet;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

/**
 * LocalRestCatalog: Iceberg's own REST catalog server, in-process on 127.0.0.1, for the tests.
 *
 * <p>It is what the test-fixtures RESTCatalogServer runs (Iceberg's RESTCatalogAdapter behind its
 * RESTCatalogServlet, on Jetty), assembled here so that it binds the loopback interface only
 * (RESTCatalogServer binds every interface) on a free port, and so that its backing JDBC catalog
 * (SQLite in a temporary file) writes the {@code file:} warehouse through LocalFileIO rather than
 * Hadoop's.
 */
final class LocalRestCatalog {
  private final JdbcCatalog backend;
  private final Server server;
  private final String uri;

  LocalRestCatalog(Path dir) throws Exception {
    Files.createDirectories(dir);
    backend =
        Catalogs.jdbc(
            "rest_backend",
            "jdbc:sqlite:" + dir.resolve("rest-catalog.db"),
            Map.of("warehouse", dir.resolve("warehouse").toUri().toString()));
    server = new Server();
    ServerConnector connector = new ServerConnector(server);
    connector.setHost("127.0.0.1");
    connector.setPort(0);
    server.addConnector(connector);
    ServletContextHandler context = new ServletContextHandler();
    context.addServlet(
        new ServletHolder(new RESTCatalogServlet(new RESTCatalogAdapter(backend))), "/*");
    server.setHandler(context);
    server.start();
    uri = "http://127.0.0.1:" + connector.getLocalPort();
  }

  /** The base URI a REST client's {@code uri} option names. */
  String uri() {
    return uri;
  }

  void stop() throws Exception {
    try {
      server.stop();
    } finally {
      backend.close();
    }
  }
}
