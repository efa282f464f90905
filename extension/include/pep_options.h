/*-------------------------------------------------------------------------
 *
 * pep_options.h
 *	  The named options of parallel_export_parquet, checked before any work.
 *
 * IDENTIFICATION
 *	  extension/include/pep_options.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef PEP_OPTIONS_H
#define PEP_OPTIONS_H

#include "fmgr.h"
#include "utils/array.h"
#include "utils/jsonb.h"

#include "pep_source.h"

typedef struct PEPOptions
{
	int workers;					 /* 0: chosen from the source */
	char *compression;				 /* codec name, lower case */
	int compression_level;			 /* -1: the codec's default */
	int64 row_group_rows;			 /* rows per row group at most */
	int64 row_group_bytes;			 /* bytes per row group at most */
	int64 file_size_bytes;			 /* start a new part past this; 0: never */
	int64 page_size;				 /* bytes per page */
	int dictionary;					 /* PEP_DICTIONARY_* */
	bool statistics;				 /* column statistics */
	char *parquet_version;			 /* "v1" or "v2" */
	ArrayType *bloom_filter_columns; /* column names, or NULL */
	bool overwrite;					 /* replace a previous complete export */
	PEPTypeChoices types;			 /* unconstrained_numeric */
	char *s3_server;				 /* foreign server of an s3:// target, or NULL */
	ArrayType *partition_by;		 /* column names of the folder levels, or NULL */
	bool write_partition_columns;	 /* keep them in the files too */
	char *field_ids;				 /* 'auto' or a JSON object, or NULL: none */
	Jsonb *kv_metadata;				 /* footer key-value pairs, or NULL */
} PEPOptions;

/* dictionary => true, false, or NULL: decided per column from statistics. */
#define PEP_DICTIONARY_OFF	0
#define PEP_DICTIONARY_ON	1
#define PEP_DICTIONARY_AUTO 2

/* The argument positions of the SQL function, after source and directory. */
#define PEP_ARG_WORKERS					2
#define PEP_ARG_COMPRESSION				3
#define PEP_ARG_COMPRESSION_LEVEL		4
#define PEP_ARG_ROW_GROUP_ROWS			5
#define PEP_ARG_ROW_GROUP_BYTES			6
#define PEP_ARG_FILE_SIZE_BYTES			7
#define PEP_ARG_PAGE_SIZE				8
#define PEP_ARG_DICTIONARY				9
#define PEP_ARG_STATISTICS				10
#define PEP_ARG_PARQUET_VERSION			11
#define PEP_ARG_BLOOM_FILTER_COLUMNS	12
#define PEP_ARG_OVERWRITE				13
#define PEP_ARG_UNCONSTRAINED_NUMERIC	14
#define PEP_ARG_S3_SERVER				15
#define PEP_ARG_COMPATIBILITY			16
#define PEP_ARG_PARTITION_BY			17
#define PEP_ARG_WRITE_PARTITION_COLUMNS 18
#define PEP_ARG_FIELD_IDS				19
#define PEP_ARG_KV_METADATA				20
#define PEP_NARGS						21

/* Version 1.0's SQL definitions pass this many; later arguments take their defaults. */
#define PEP_NARGS_1_0 15

extern void pep_options_parse(FunctionCallInfo fcinfo, PEPOptions *opts);
extern char *pep_options_writer_text(const PEPOptions *opts, const PEPSource *src);
extern const char *pep_compatibility_name(int compatibility);

#endif /* PEP_OPTIONS_H */
