package org.parallelexport.iceberg;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.BaseMetastoreCatalog;
import org.apache.iceberg.BaseMetastoreTableOperations;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.util.LocationUtil;

/**
 * DeferredPointerCatalog: PostgreSQL as the catalog, with the commit left to the caller's
 * transaction.
 *
 * <p>The tables live in the layout of Iceberg's JDBC catalog ({@code iceberg_tables}), which C
 * reads and writes through SPI, so a snapshot becomes visible exactly when the caller's transaction
 * commits. This catalog does the rest, through Iceberg: it loads each table from the metadata
 * location C read ({@code pointers}), and its commits write the new metadata file and touch no
 * database. Each commit is recorded as a {@link Swap}; C then performs it in the caller's
 * transaction: an UPDATE of the table's row whose WHERE names the previous location (a
 * compare-and-swap: no row updated means a concurrent commit, 40001), or an INSERT for a created
 * table. A rollback leaves the row as it was, and the written files unreferenced (DESIGN.md,
 * "Iceberg target (in progress)"). Within the transaction the catalog reads its own commits.
 *
 * <p>Tables are placed as the JDBC catalog places them: {@code warehouse/namespace/table}.
 */
public final class DeferredPointerCatalog extends BaseMetastoreCatalog {
  /** One pointer swap for C to perform: {@code previous} is null for a created table. */
  public record Swap(TableIdentifier table, String previous, String next) {}

  private final String name;
  private final String warehouse;
  private final FileIO io;
  private final Map<TableIdentifier, String> pointers;
  // Per committed table, the location the caller's transaction read: its swap's expected value.
  private final Map<TableIdentifier, String> committedFrom = new LinkedHashMap<>();

  /**
   * @param pointers each existing table's {@code metadata_location}, as the caller's transaction
   *     sees it; a table absent from it does not exist
   */
  public DeferredPointerCatalog(
      String name, String warehouse, FileIO io, Map<TableIdentifier, String> pointers) {
    this.name = name;
    this.warehouse = LocationUtil.stripTrailingSlash(warehouse);
    this.io = io;
    this.pointers = new HashMap<>(pointers);
  }

  @Override
  public String name() {
    return name;
  }

  /**
   * The swaps this catalog's commits wait for, one per table in first-commit order: from the
   * location the caller's transaction read to the last one written.
   */
  public List<Swap> swaps() {
    List<Swap> swaps = new ArrayList<>();
    for (Map.Entry<TableIdentifier, String> from : committedFrom.entrySet()) {
      swaps.add(new Swap(from.getKey(), from.getValue(), pointers.get(from.getKey())));
    }
    return swaps;
  }

  @Override
  protected TableOperations newTableOps(TableIdentifier id) {
    return new Operations(id);
  }

  @Override
  protected String defaultWarehouseLocation(TableIdentifier id) {
    return String.join("/", warehouse, String.join("/", id.namespace().levels()), id.name());
  }

  @Override
  public List<TableIdentifier> listTables(Namespace namespace) {
    throw new UnsupportedOperationException("an export lists no tables");
  }

  @Override
  public boolean dropTable(TableIdentifier id, boolean purge) {
    throw new UnsupportedOperationException("an export drops no table");
  }

  @Override
  public void renameTable(TableIdentifier from, TableIdentifier to) {
    throw new UnsupportedOperationException("an export renames no table");
  }

  private final class Operations extends BaseMetastoreTableOperations {
    private final TableIdentifier id;

    Operations(TableIdentifier id) {
      this.id = id;
    }

    @Override
    protected String tableName() {
      return id.toString();
    }

    @Override
    public FileIO io() {
      return io;
    }

    @Override
    protected void doRefresh() {
      refreshFromMetadataLocation(pointers.get(id));
    }

    // Writes the new metadata file through Iceberg and moves only this catalog's own pointer:
    // the catalog row is C's to swap, in the caller's transaction.
    @Override
    protected void doCommit(TableMetadata base, TableMetadata metadata) {
      String next = writeNewMetadataIfRequired(base == null, metadata);
      String previous = base == null ? null : currentMetadataLocation();
      committedFrom.putIfAbsent(id, previous);
      pointers.put(id, next);
    }
  }
}
