/*-------------------------------------------------------------------------
 *
 * pep_manifest.h
 *	  The _SUCCESS manifest of an export, as every target builds it.
 *
 * IDENTIFICATION
 *	  extension/include/pep_manifest.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef PEP_MANIFEST_H
#define PEP_MANIFEST_H

#include "pep_jni.h"
#include "pep_ledger.h"

/*
 * What every manifest lists, as the Java arguments of its one builder
 * (org.parallelexport.parquet.Manifest): the finished parts in ledger
 * order, each by its path relative to the export's root, and the versions.
 */
typedef struct PEPManifestParts
{
	jobjectArray names; /* the parts' relative paths, UTF-8 */
	jlongArray rows;	/* their rows */
	jlongArray bytes;	/* their sizes */
	jstring extension;	/* this extension's version */
	jstring postgres;	/* PostgreSQL's */
} PEPManifestParts;

extern void pep_manifest_parts(PEPLedger *ledger, PEPManifestParts *parts);
extern char *pep_manifest_local(jobject sink, PEPLedger *ledger, Size *len);

#endif /* PEP_MANIFEST_H */
