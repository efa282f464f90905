package org.parallelexport.iceberg;

import java.util.Map;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/** JdbcCatalogTest: the committer's contract through Iceberg's JDBC catalog (SQLite file). */
class JdbcCatalogTest extends CommitterContract {
  private JdbcCatalog catalog;

  @BeforeEach
  void open() {
    catalog =
        Catalogs.jdbc(
            "here",
            "jdbc:sqlite:" + scratch.resolve("catalog.db"),
            Map.of("warehouse", scratch.resolve("warehouse").toUri().toString()));
  }

  @AfterEach
  void close() throws Exception {
    catalog.close();
  }

  @Override
  Catalog catalog() {
    return catalog;
  }
}
