package org.parallelexport.readback;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;

/** Creates the committed source objects (fixtures.sql) once per test JVM. */
final class Fixtures {
  static final String SCHEMA = "regress_readback";
  private static boolean loaded;

  private Fixtures() {}

  static synchronized void ensure() throws SQLException {
    if (loaded) {
      return;
    }
    String sql;
    try (InputStream in = Fixtures.class.getResourceAsStream("/fixtures.sql")) {
      sql = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    try (Connection pg = Env.postgres();
        Statement st = pg.createStatement()) {
      Env.ensureExtension(pg);
      st.execute(sql);
    }
    loaded = true;
  }
}
