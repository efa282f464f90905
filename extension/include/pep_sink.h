/*-------------------------------------------------------------------------
 *
 * pep_sink.h
 *	  The worker's handle on its Java writer, org.parallelexport.parquet.BatchSink.
 *
 * IDENTIFICATION
 *	  extension/include/pep_sink.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef PEP_SINK_H
#define PEP_SINK_H

#include <jni.h>

#include "pep_batch.h"

typedef struct PEPSink PEPSink;

extern PEPSink *pep_sink_create(PEPBatch *batch, const char *options);
/*
 * path is UTF-8 (a part's name under its folders, or an object key, both
 * made UTF-8 where they are made); display is in the database encoding.
 */
extern void pep_sink_open_part(PEPSink *sink, const char *path, const char *display);
extern void pep_sink_write_batch(PEPSink *sink, PEPBatch *batch);
extern void pep_sink_fail_next_batch(PEPSink *sink);
extern uint64 pep_sink_close_part(PEPSink *sink);
extern uint64 pep_sink_part_size(PEPSink *sink);
extern uint64 pep_sink_part_size_limit(PEPSink *sink);
extern jobject pep_sink_object(PEPSink *sink);
extern void pep_sink_select_part(PEPSink *sink, int slot);
extern int pep_sink_part_to_finish(PEPSink *sink);

#endif /* PEP_SINK_H */
