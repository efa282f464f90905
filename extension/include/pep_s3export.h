/*-------------------------------------------------------------------------
 *
 * pep_s3export.h
 *	  An export into s3://bucket/prefix: what the leader and its workers share.
 *
 * The protocol is DESIGN.md's "Object storage: never a partial export".
 * The leader never talks to S3: it resolves the target (pep_s3target.c),
 * puts it and the settings text into the export's DSM under its own key,
 * and moves the export through its phases; the workers do every request
 * through their JVM (pep_s3worker.c).  An export is an object-store export
 * exactly when this chunk is in the DSM.
 *
 * IDENTIFICATION
 *	  extension/include/pep_s3export.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef PEP_S3EXPORT_H
#define PEP_S3EXPORT_H

#include "access/parallel.h"

#include "pep_fault.h"
#include "pep_ledger.h"
#include "pep_shared.h"
#include "pep_s3target.h"

/* 12 hex digits, random per export, in every part name. */
#define PEP_S3_EXPORT_ID_LEN 12

/* The manifest key's length in bytes (pep_s3seal.c; S3ManifestSeal.KEY_BYTES). */
#define PEP_S3_MANIFEST_KEY_BYTES 32

/* Phases the leader sets; each is broadcast on PEPShared.cv. */
#define PEP_S3_WRITING	 0 /* workers write parts, uploads stay pending */
#define PEP_S3_PUBLISH	 1 /* every worker finished writing: complete them */
#define PEP_S3_COMMITTED 2 /* _SUCCESS is in place and the leader committed */

typedef struct PEPS3Shared
{
	/* Fixed at setup. */
	char bucket[64];									  /* the target's bucket */
	char prefix[1024];									  /* its key prefix in UTF-8, "" or ending in '/' */
	char url[1100];										  /* s3://bucket/prefix/, for messages */
	char export_id[PEP_S3_EXPORT_ID_LEN + 1];			  /* in every part name */
	bool overwrite;										  /* a previous export of ours may be replaced */
	char ledger_path[MAXPGPATH];						  /* the ledger file workers append to */
	bool sweep;											  /* it held a dead record: worker 0 sweeps it first */
	char manifest_key[2 * PEP_S3_MANIFEST_KEY_BYTES + 1]; /* hex, seals
																	 * _SUCCESS; secret */

	/* Protected by PEPShared.mutex. */
	int phase;			   /* PEP_S3_* */
	int npublished;		   /* workers whose uploads are complete */
	bool success_begun;	   /* worker 0 is sending _SUCCESS or sent it */
	bool success_sent;	   /* worker 0 wrote _SUCCESS */
	bool undoing;		   /* a worker entered its exit path: no _SUCCESS now */
	bool swept;			   /* worker 0 swept the dead record */
	bool ledger_ready;	   /* the leader began this export's record */
	int nopened;		   /* workers that opened their session */
	int nundone;		   /* of those, workers that undid all they made */
	bool replaced_deleted; /* worker 0 deleted every part it replaced */

	/* The S3Settings lines: they may hold a secret, so they go nowhere else. */
	char settings[FLEXIBLE_ARRAY_MEMBER];
} PEPS3Shared;

/* The leader's side, pep_s3export.c. */
extern Size pep_s3_shared_size(const PEPS3Target *target);
extern PEPS3Shared *pep_s3_shared_init(void *space, const PEPS3Target *target, bool overwrite,
									   const char *ledger_path, bool sweep);
extern void pep_s3_wait_swept(PEPShared *shared, PEPS3Shared *s3, ParallelContext *pcxt);
extern void pep_s3_ledger_ready(PEPShared *shared, PEPS3Shared *s3);
extern bool pep_s3_all_undone(PEPShared *shared, PEPS3Shared *s3);
extern void pep_s3_publish(PEPShared *shared, PEPS3Shared *s3, ParallelContext *pcxt,
						   const PEPFault *fault);
extern bool pep_s3_commit(PEPShared *shared, PEPS3Shared *s3, ParallelContext *pcxt);

/* The server's manifest key, pep_s3seal.c. */
extern void pep_s3_manifest_key(char *hex);

/* A worker's side, pep_s3worker.c. */
typedef struct PEPS3Worker PEPS3Worker;
struct PEPSink;

extern PEPS3Worker *pep_s3w_open(PEPShared *shared, PEPS3Shared *s3);
extern void pep_s3w_attach(PEPS3Worker *sw, struct PEPSink *sink);
extern void pep_s3w_sweep(PEPS3Worker *sw);
extern void pep_s3w_check_target(PEPS3Worker *sw);
extern void pep_s3w_name_part(PEPS3Worker *sw, PEPLedger *ledger, int entry, char **key,
							  char **display);
extern void pep_s3w_part_closed(PEPS3Worker *sw);
extern void pep_s3w_inject_fault(PEPS3Worker *sw, const char *point);
extern void pep_s3w_publish(PEPS3Worker *sw, PEPLedger *ledger, const PEPFault *fault);

#endif /* PEP_S3EXPORT_H */
