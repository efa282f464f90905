/*-------------------------------------------------------------------------
 *
 * pep_partition.h
 *	  partition_by: which columns make the folders, and their folder names.
 *
 * IDENTIFICATION
 *	  extension/include/pep_partition.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef PEP_PARTITION_H
#define PEP_PARTITION_H

#include "fmgr.h"

#include "pep_options.h"
#include "pep_source.h"

/* Hive's name for the folder of NULL. */
#define PEP_NULL_PARTITION "__HIVE_DEFAULT_PARTITION__"

/* One folder level, as a worker formats its values. */
typedef struct PEPPartitionLevel
{
	const PEPColumn *column; /* the source column */
	char *prefix;			 /* "name=" with the name in UTF-8, escaped */
	FmgrInfo outfn;			 /* the type's output function */
} PEPPartitionLevel;

extern int pep_partition_resolve(const PEPSource *src, const PEPOptions *opts, int *columns);
extern PEPColumn *pep_partition_file_columns(const PEPColumn *columns, int ncolumns,
											 const int *partition, int n, int *nfile);
/* A UTF-8 name the export writes, in the database encoding for a message. */
extern char *pep_name_for_message(const char *utf8);
extern void pep_partition_level_init(PEPPartitionLevel *level, const PEPColumn *column);
extern void pep_partition_append(StringInfo path, const PEPPartitionLevel *level,
								 Datum value, bool isnull);

#endif /* PEP_PARTITION_H */
