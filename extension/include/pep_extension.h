/*-------------------------------------------------------------------------
 *
 * pep_extension.h
 *	  The extension's name and version, as file names and stamps carry them.
 *
 * IDENTIFICATION
 *	  extension/include/pep_extension.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef PEP_EXTENSION_H
#define PEP_EXTENSION_H

#define PEP_EXTENSION_NAME "parallel_export_parquet"
#define PEP_VERSION		   "1.2"

#endif /* PEP_EXTENSION_H */
