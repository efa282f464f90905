/*-------------------------------------------------------------------------
 *
 * pep_contract.h
 *	  The constants C shares with the Java writer, defined once in Java.
 *
 * Kind codes, value widths and option defaults are @Native constants of
 * ColumnKind and OptionDefaults (parquet-writer); the build runs javac -h
 * on those files and writes their headers to generated/ (see the
 * Makefile).  The String constants, the options' keys (OptionNames), their
 * text defaults, the object-store settings' keys (s3.S3SettingNames) and
 * the words of an object-store export's crash record (s3.S3RecordWords)
 * and the names of the object-store fault points (s3.S3FaultPoints),
 * cannot be @Native; the build lists them with javap
 * -constants into generated/pep_contract_strings.h under the names javac -h
 * would give them.  So C has no copy of its own: a constant Java renames or
 * drops fails the C build, and a changed value reaches both sides at once.
 * The macros below only shorten the generated names.
 *
 * IDENTIFICATION
 *	  extension/include/pep_contract.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef PEP_CONTRACT_H
#define PEP_CONTRACT_H

#include "org_parallelexport_parquet_ColumnKind.h"
#include "org_parallelexport_parquet_OptionDefaults.h"
#include "pep_contract_strings.h"

/* ColumnKind.k: a kind code */
#define PEP_JAVA_KIND(k) org_parallelexport_parquet_ColumnKind_##k
/* ColumnKind.k_WIDTH: bytes per row of a fixed-width kind's values */
#define PEP_KIND_WIDTH(k) org_parallelexport_parquet_ColumnKind_##k##_WIDTH
/* bytes per row of a var kind: an int32 offset and an int32 length */
#define PEP_VAR_SLOT_WIDTH org_parallelexport_parquet_ColumnKind_VAR_SLOT_WIDTH
/* OptionDefaults.o: the default of a writer option (a number or a string literal) */
#define PEP_DEFAULT(o) org_parallelexport_parquet_OptionDefaults_##o
/* OptionNames.o: the key of a writer option, a string literal */
#define PEP_OPTION(o) org_parallelexport_parquet_OptionNames_##o
/* s3.S3SettingNames.o: the key of an object store's setting, a string literal */
#define PEP_S3_SETTING(o) org_parallelexport_parquet_s3_S3SettingNames_##o
/* s3.S3RecordWords.o: the first word of a crash record's line, a string literal */
#define PEP_S3_RECORD(o) org_parallelexport_parquet_s3_S3RecordWords_##o
/* s3.S3FaultPoints.o: the name of an object-store fault point, a string literal */
#define PEP_S3_FAULT(o) org_parallelexport_parquet_s3_S3FaultPoints_##o

#endif /* PEP_CONTRACT_H */
