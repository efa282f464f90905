package org.parallelexport.parquet;

/**
 * OptionNames: the keys of the "key=value" lines in which the C side passes the writer options,
 * defined once.
 *
 * <p>SinkOptions parses these keys. The C side writes them (extension/src/entry/pep_options.c) from
 * the header the C build makes of this file's constants (extension/include/pep_contract.h): Java
 * Strings cannot be {@code @Native}, so the build lists them with javap -constants, and a key
 * renamed or dropped here fails the C build as a changed {@code @Native} constant does.
 */
final class OptionNames {
  static final String CREATED_BY_EXTENSION = "created_by_extension";
  static final String COMPRESSION = "compression";
  static final String COMPRESSION_LEVEL = "compression_level";
  static final String ROW_GROUP_ROWS = "row_group_rows";
  static final String ROW_GROUP_BYTES = "row_group_bytes";
  static final String PAGE_SIZE = "page_size";
  static final String DICTIONARY = "dictionary";
  // Positions of the columns written without a dictionary though dictionary is true.
  static final String DICTIONARY_OFF_COLUMNS = "dictionary_off_columns";
  static final String STATISTICS = "statistics";
  // The SQL option parquet_version.
  static final String WRITER_VERSION = "writer_version";
  static final String COMPATIBILITY = "compatibility";
  // Positions of the columns that get a bloom filter.
  static final String BLOOM_FILTER_COLUMNS = "bloom_filter_columns";
  // A partitioned export's worker: parts open at once, and their buffered bytes together.
  static final String PART_WRITERS = "part_writers";
  static final String PART_MEMORY_BYTES = "part_memory_bytes";
  // The Parquet field id of each numbered schema field in pre-order, -1 for none (FieldIds).
  static final String FIELD_IDS = "field_ids";
  // Extra footer key-value pairs: hexkey:hexvalue, comma-separated, each side UTF-8 in hex.
  static final String KV_METADATA = "kv_metadata";

  private OptionNames() {}
}
