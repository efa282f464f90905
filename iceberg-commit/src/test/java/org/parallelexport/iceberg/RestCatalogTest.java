package org.parallelexport.iceberg;

import java.util.Map;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.rest.RESTCatalog;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/** RestCatalogTest: the committer's contract through Iceberg's REST catalog server. */
class RestCatalogTest extends CommitterContract {
  private LocalRestCatalog server;
  private RESTCatalog catalog;

  @BeforeEach
  void start() throws Exception {
    server = new LocalRestCatalog(scratch);
    catalog = Catalogs.rest("lake", Map.of("uri", server.uri()));
  }

  @AfterEach
  void stop() throws Exception {
    try {
      catalog.close();
    } finally {
      server.stop();
    }
  }

  @Override
  Catalog catalog() {
    return catalog;
  }
}
