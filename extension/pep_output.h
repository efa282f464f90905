/*-------------------------------------------------------------------------
 *
 * pep_output.h
 *	  The output protocol: directory guard, lock, staging, publication.
 *
 * IDENTIFICATION
 *	  extension/pep_output.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef PEP_OUTPUT_H
#define PEP_OUTPUT_H

#include "pep.h"

typedef struct PEPOutput
{
	char		target[MAXPGPATH];	/* canonical absolute target directory */
	char		parent[MAXPGPATH];	/* its parent, where staging lives */
	char		lock_path[MAXPGPATH];	/* lock file owning the staging area */
	char		staging[MAXPGPATH];	/* staging directory */
	int			lock_fd;		/* open lock file holding flock, or -1 */
	bool		staging_created;	/* this export created the staging directory */
	bool		published;		/* staging was renamed onto the target */
	bool		overwrite;		/* a previous complete export may be replaced */
} PEPOutput;

extern void pep_output_guard(PEPOutput *out, const char *directory, bool overwrite);
extern void pep_output_lock(PEPOutput *out);
extern void pep_output_create_staging(PEPOutput *out);
extern void pep_output_seal(PEPOutput *out, PEPLedger *ledger);
extern void pep_output_publish(PEPOutput *out);
extern void pep_output_release(PEPOutput *out);
extern void pep_output_remove(PEPOutput *out, PEPLedger *ledger);

#endif							/* PEP_OUTPUT_H */
