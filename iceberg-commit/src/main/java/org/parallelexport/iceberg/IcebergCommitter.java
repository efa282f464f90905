package org.parallelexport.iceberg;

import java.util.List;
import java.util.Optional;
import org.apache.iceberg.AppendFiles;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.OverwriteFiles;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotUpdate;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.Transaction;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.exceptions.CommitStateUnknownException;
import org.apache.iceberg.exceptions.ValidationException;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.util.LocationUtil;
import org.apache.parquet.schema.MessageType;

/**
 * IcebergCommitter: one export into one Iceberg table, committed as exactly one snapshot.
 *
 * <p>{@link #prepare} runs before any worker starts: it loads the table and checks that the
 * export's columns fit it, or stages the table's creation (a create transaction: the catalog shows
 * nothing until commit). It tells the workers where to write ({@link #dataLocation}) and which
 * field ids to stamp ({@link #fieldIdsJson}). {@link #commit} then adds every part in one snapshot:
 * an append (a concurrent append is rebased by Iceberg's retry and both land), or an overwrite that
 * replaces every row and is validated from the snapshot seen at prepare (serializable: a concurrent
 * commit that added or deleted rows refuses it). The snapshot's summary names the export ({@link
 * #EXPORT_ID}), so {@link #settle} can tell after a crash whether the commit happened.
 */
public final class IcebergCommitter {
  public static final String EXPORT_ID = "pep.export-id";
  public static final String SOURCE = "pep.source";
  public static final String ROWS = "pep.rows";
  public static final String VERSION = "pep.version";
  public static final String POSTGRES_VERSION = "pep.postgresql-version";

  /** The format version of a table the export creates, unless asked for 3. */
  public static final int DEFAULT_FORMAT_VERSION = 2;

  private final Catalog catalog;
  private final TableIdentifier id;
  private final MessageType parquet;
  private final boolean overwrite;
  private final Transaction create;
  private final Table table;
  private final Long seenSnapshotId;

  private IcebergCommitter(
      Catalog catalog,
      TableIdentifier id,
      MessageType parquet,
      boolean overwrite,
      Transaction create,
      Table table) {
    this.catalog = catalog;
    this.id = id;
    this.parquet = parquet;
    this.overwrite = overwrite;
    this.create = create;
    this.table = table;
    Snapshot seen = create == null ? table.currentSnapshot() : null;
    this.seenSnapshotId = seen == null ? null : seen.snapshotId();
  }

  /**
   * Loads {@code id} and checks that {@code parquet} (the writer's schema) fits it, or stages its
   * creation in format {@code formatVersion}. Creates the namespace if the catalog lacks it.
   *
   * @throws IcebergRefusal when the export's columns do not fit the existing table
   */
  public static IcebergCommitter prepare(
      Catalog catalog,
      TableIdentifier id,
      MessageType parquet,
      boolean overwrite,
      int formatVersion) {
    if (formatVersion != 2 && formatVersion != 3) {
      throw new IllegalArgumentException(
          String.format("Iceberg format version %d is not 2 or 3", formatVersion));
    }
    Schema export = IcebergSchemas.fromParquet(parquet);
    if (catalog.tableExists(id)) {
      Table table = catalog.loadTable(id);
      if (table.spec().isPartitioned()) {
        throw new IcebergRefusal(
            IcebergRefusal.FEATURE_NOT_SUPPORTED,
            String.format("cannot export into partitioned table %s", id));
      }
      IcebergSchemas.requireWritable(table.schema(), export, id.toString());
      return new IcebergCommitter(catalog, id, parquet, overwrite, null, table);
    }
    createNamespace(catalog, id.namespace());
    Transaction create =
        catalog
            .buildTable(id, export)
            .withProperty(TableProperties.FORMAT_VERSION, Integer.toString(formatVersion))
            .createTransaction();
    return new IcebergCommitter(catalog, id, parquet, overwrite, create, create.table());
  }

  private static void createNamespace(Catalog catalog, Namespace namespace) {
    if (catalog instanceof SupportsNamespaces namespaces
        && !namespace.isEmpty()
        && !namespaces.namespaceExists(namespace)) {
      try {
        namespaces.createNamespace(namespace);
      } catch (AlreadyExistsException e) {
        // Another export created it meanwhile: what we wanted.
      }
    }
  }

  /** The table, or for a new one the staged table its creation will commit. */
  public Table table() {
    return table;
  }

  /** The directory under which the workers write their parts (the table's data location). */
  public String dataLocation() {
    String data =
        table
            .properties()
            .getOrDefault(TableProperties.WRITE_DATA_LOCATION, table.location() + "/data");
    return LocationUtil.stripTrailingSlash(data);
  }

  /** The writer's {@code field_ids} option: the table's field id of each Parquet column. */
  public String fieldIdsJson() {
    return IcebergSchemas.fieldIdsJson(parquet, table.schema());
  }

  /**
   * Commits {@code files} as one snapshot whose summary describes {@code info}, and returns its id.
   *
   * @throws IcebergRefusal 40001 when a concurrent commit conflicts (an overwrite whose table
   *     changed, a table created meanwhile, retries exhausted), 40003 when the catalog's answer was
   *     lost: then {@link #settle} tells whether the snapshot exists
   */
  public long commit(List<DataFile> files, ExportInfo info) {
    try {
      if (create != null) {
        AppendFiles append = create.newAppend();
        files.forEach(append::appendFile);
        describe(append, files, info).commit();
        create.commitTransaction();
      } else if (overwrite) {
        OverwriteFiles replace =
            table.newOverwrite().overwriteByRowFilter(Expressions.alwaysTrue());
        files.forEach(replace::addFile);
        if (seenSnapshotId != null) {
          replace.validateFromSnapshot(seenSnapshotId);
        }
        replace.validateNoConflictingData().validateNoConflictingDeletes();
        describe(replace, files, info).commit();
      } else {
        AppendFiles append = table.newAppend();
        files.forEach(append::appendFile);
        describe(append, files, info).commit();
      }
    } catch (ValidationException | CommitFailedException | AlreadyExistsException e) {
      throw new IcebergRefusal(
          IcebergRefusal.SERIALIZATION_FAILURE,
          String.format("a concurrent commit to table %s conflicts with this export", id),
          e);
    } catch (CommitStateUnknownException e) {
      throw new IcebergRefusal(
          IcebergRefusal.COMPLETION_UNKNOWN,
          String.format("the outcome of the commit to table %s is unknown", id),
          e);
    }
    return settle(catalog, id, info.exportId())
        .orElseThrow(
            () ->
                new IllegalStateException(
                    String.format(
                        "table %s has no snapshot of export %s after its commit",
                        id, info.exportId())));
  }

  private static <T extends SnapshotUpdate<T>> T describe(
      T update, List<DataFile> files, ExportInfo info) {
    long rows = files.stream().mapToLong(DataFile::recordCount).sum();
    return update
        .set(EXPORT_ID, info.exportId())
        .set(SOURCE, info.source())
        .set(ROWS, Long.toString(rows))
        .set(VERSION, info.extensionVersion())
        .set(POSTGRES_VERSION, info.postgresVersion());
  }

  /**
   * The id of the snapshot of table {@code id} that export {@code exportId} committed, if any:
   * after a crash or a lost answer, whether the export's files are the table's (keep them) or
   * orphans (delete them).
   */
  public static Optional<Long> settle(Catalog catalog, TableIdentifier id, String exportId) {
    if (!catalog.tableExists(id)) {
      return Optional.empty();
    }
    for (Snapshot snapshot : catalog.loadTable(id).snapshots()) {
      if (exportId.equals(snapshot.summary().get(EXPORT_ID))) {
        return Optional.of(snapshot.snapshotId());
      }
    }
    return Optional.empty();
  }
}
