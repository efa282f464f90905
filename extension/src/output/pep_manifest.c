/*-------------------------------------------------------------------------
 *
 * pep_manifest.c
 *	  The _SUCCESS manifest of an export: what it lists, and a local one.
 *
 * Every target's _SUCCESS is the JSON manifest that one Java builder makes
 * (org.parallelexport.parquet.Manifest; DESIGN.md, "The _SUCCESS
 * manifest"), from the parts the ledger says were finished (each part's
 * rows and bytes, recorded by its worker as it closed it) and the schema
 * the worker's sink writes.  So a worker builds it, once every part of the
 * export is finished: an object store's worker 0 through S3Export, which
 * adds the export id and the seal and PUTs it (pep_s3worker.c), a
 * directory's last worker to finish through Manifest.local, whose bytes it
 * writes into the staging directory (pep_dirtarget.c).
 *
 * IDENTIFICATION
 *	  extension/src/output/pep_manifest.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "pep_extension.h"
#include "pep_jni_methods.h"
#include "pep_manifest.h"

static PEPJavaMethod pep_manifest_local_m = PEP_JNI_MANIFEST_LOCAL;

static jbyteArray
pep_manifest_java_local(jobject sink, const PEPManifestParts *parts)
{
	return (jbyteArray) pep_jni_call_object(&pep_manifest_local_m, NULL,
											"could not build the _SUCCESS manifest", sink,
											parts->names, parts->rows, parts->bytes,
											parts->extension, parts->postgres);
}

/*
 * The finished parts of the ledger and the versions, as Java arguments.
 * Called once every worker finished writing, so no entry changes meanwhile.
 */
void
pep_manifest_parts(PEPLedger *ledger, PEPManifestParts *parts)
{
	int nentries;
	int nparts = 0;
	const char **names;
	int64 *rows;
	int64 *bytes;

	SpinLockAcquire(&ledger->mutex);
	nentries = ledger->nentries;
	SpinLockRelease(&ledger->mutex);
	names = palloc(sizeof(char *) * Max(nentries, 1));
	rows = palloc(sizeof(int64) * Max(nentries, 1));
	bytes = palloc(sizeof(int64) * Max(nentries, 1));
	for (int i = 0; i < nentries; i++)
		if (ledger->entries[i].closed)
		{
			names[nparts] = pep_ledger_relpath(ledger, i);
			rows[nparts] = (int64) ledger->entries[i].rows;
			bytes[nparts] = (int64) ledger->entries[i].bytes;
			nparts++;
		}
	parts->names = pep_jni_utf8_array(names, nparts);
	parts->rows = pep_jni_long_array(rows, nparts);
	parts->bytes = pep_jni_long_array(bytes, nparts);
	parts->extension = pep_jvm_string(PEP_VERSION);
	parts->postgres = pep_jvm_string(PG_VERSION);
}

/* A local export's manifest, built through sink: palloc'd bytes, their length in *len. */
char *
pep_manifest_local(jobject sink, PEPLedger *ledger, Size *len)
{
	PEPManifestParts parts;

	pep_manifest_parts(ledger, &parts);
	return pep_jni_bytes(pep_manifest_java_local(sink, &parts), len);
}
