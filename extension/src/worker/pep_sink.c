/*-------------------------------------------------------------------------
 *
 * pep_sink.c
 *	  Calls from a worker into its Java writer.
 *
 * C drives and Java is a sink: each call hands Java one batch or one part
 * event and returns, so a worker spends at most one batch's encoding time
 * inside Java and reaches CHECK_FOR_INTERRUPTS again soon after a cancel.
 * Every call goes through its typed caller below and pep_jni.h, which turn
 * a Java exception into an ERROR naming what the worker was doing.
 *
 * IDENTIFICATION
 *	  extension/src/worker/pep_sink.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "pep_jni.h"
#include "pep_jni_methods.h"
#include "pep_sink.h"
#include "utils/memutils.h"


struct PEPSink
{
	jobject sink;	 /* global ref to the BatchSink */
	char *write_msg; /* error message of a failed write of this part */
	char *close_msg; /* error message of a failed close of this part */
};

/*
 * BatchSink's methods, each with its descriptor and its one typed caller
 * (pep_jni.h).
 */
static PEPJavaMethod pep_sink_create_m = PEP_JNI_SINK_CREATE;
static PEPJavaMethod pep_sink_set_buffer_m = PEP_JNI_SINK_SET_BUFFER;
static PEPJavaMethod pep_sink_open_part_m = PEP_JNI_SINK_OPEN_PART;
static PEPJavaMethod pep_sink_write_batch_m = PEP_JNI_SINK_WRITE_BATCH;
static PEPJavaMethod pep_sink_fail_next_batch_m = PEP_JNI_SINK_FAIL_NEXT_BATCH;
static PEPJavaMethod pep_sink_close_part_m = PEP_JNI_SINK_CLOSE_PART;
static PEPJavaMethod pep_sink_part_size_m = PEP_JNI_SINK_PART_SIZE;
static PEPJavaMethod pep_sink_part_size_limit_m = PEP_JNI_SINK_PART_SIZE_LIMIT;
static PEPJavaMethod pep_sink_select_part_m = PEP_JNI_SINK_SELECT_PART;
static PEPJavaMethod pep_sink_part_to_finish_m = PEP_JNI_SINK_PART_TO_FINISH;

static jobject
pep_sink_java_create(jobjectArray names, jintArray kinds, jintArray precisions, jintArray scales,
					 jobjectArray types, jint capacity, jintArray null_offsets,
					 jintArray value_offsets, jobject buffer, jstring options,
					 jobjectArray node_names, jintArray node_kinds, jintArray node_precisions,
					 jintArray node_scales, jintArray node_children)
{
	return pep_jni_call_object(&pep_sink_create_m, NULL, "could not set up the parquet writer",
							   names, kinds, precisions, scales, types, capacity, null_offsets,
							   value_offsets, buffer, options, node_names, node_kinds,
							   node_precisions, node_scales, node_children);
}

static void
pep_sink_java_set_buffer(jobject sink, jobject buffer)
{
	pep_jni_call_void(&pep_sink_set_buffer_m, sink,
					  "could not pass a batch buffer to the parquet writer", buffer);
}

static void
pep_sink_java_open_part(jobject sink, jstring path, const char *what)
{
	pep_jni_call_void(&pep_sink_open_part_m, sink, what, path);
}

static void
pep_sink_java_write_batch(jobject sink, jint nrows, const char *what)
{
	pep_jni_call_void(&pep_sink_write_batch_m, sink, what, nrows);
}

static void
pep_sink_java_fail_next_batch(jobject sink)
{
	pep_jni_call_void(&pep_sink_fail_next_batch_m, sink, "could not inject a fault into the parquet writer");
}

static jlong
pep_sink_java_close_part(jobject sink, const char *what)
{
	return pep_jni_call_long(&pep_sink_close_part_m, sink, what);
}

static jlong
pep_sink_java_part_size(jobject sink, const char *what)
{
	return pep_jni_call_long(&pep_sink_part_size_m, sink, what);
}

static jlong
pep_sink_java_part_size_limit(jobject sink)
{
	return pep_jni_call_long(&pep_sink_part_size_limit_m, sink,
							 "could not ask the parquet writer how large a part may grow");
}

static void
pep_sink_java_select_part(jobject sink, jint slot)
{
	pep_jni_call_void(&pep_sink_select_part_m, sink, "could not switch parquet parts", slot);
}

static jint
pep_sink_java_part_to_finish(jobject sink)
{
	return pep_jni_call_int(&pep_sink_part_to_finish_m, sink,
							"could not measure the parquet parts' memory");
}

/* The column type trees in pre-order, every column's root included, as parallel arrays. */
typedef struct PEPFlatNodes
{
	int n;			 /* nodes so far */
	char **names;	 /* per node: name */
	int *kinds;		 /* per node: PEPKind */
	int *precisions; /* per node: DECIMAL precision */
	int *scales;	 /* per node: DECIMAL scale */
	int *nchildren;	 /* per node: children, which follow it */
} PEPFlatNodes;

static void
pep_flatten_tree(PEPFlatNodes *flat, const PEPNode *node)
{
	int i = flat->n++;

	flat->names[i] = node->name;
	flat->kinds[i] = node->kind;
	flat->precisions[i] = node->precision;
	flat->scales[i] = node->scale;
	flat->nchildren[i] = node->nchildren;
	for (int c = 0; c < node->nchildren; c++)
		pep_flatten_tree(flat, node->children[c]);
}

PEPSink *
pep_sink_create(PEPBatch *batch, const char *options)
{
	PEPSink *sink = MemoryContextAllocZero(TopMemoryContext, sizeof(PEPSink));
	int n = batch->ncolumns;
	const char **names = palloc(sizeof(char *) * Max(n, 1));
	const char **types = palloc(sizeof(char *) * Max(n, 1));
	int *kinds = palloc(sizeof(int) * Max(n, 1));
	int *precisions = palloc(sizeof(int) * Max(n, 1));
	int *scales = palloc(sizeof(int) * Max(n, 1));
	PEPFlatNodes flat;
	int nnodes = 0;

	for (int i = 0; i < n; i++)
	{
		names[i] = batch->columns[i].name;
		types[i] = batch->columns[i].pgtype;
		kinds[i] = batch->columns[i].kind;
		precisions[i] = batch->columns[i].precision;
		scales[i] = batch->columns[i].scale;
		nnodes += batch->columns[i].nnodes;
	}
	flat.n = 0;
	flat.names = palloc(sizeof(char *) * Max(nnodes, 1));
	flat.kinds = palloc(sizeof(int) * Max(nnodes, 1));
	flat.precisions = palloc(sizeof(int) * Max(nnodes, 1));
	flat.scales = palloc(sizeof(int) * Max(nnodes, 1));
	flat.nchildren = palloc(sizeof(int) * Max(nnodes, 1));
	for (int i = 0; i < n; i++)
		pep_flatten_tree(&flat, batch->trees[i]);
	Assert(flat.n == nnodes);

	sink->sink = pep_jni_global(
		pep_sink_java_create(pep_jni_string_array(names, n),
							 pep_jni_int_array(kinds, n),
							 pep_jni_int_array(precisions, n),
							 pep_jni_int_array(scales, n),
							 pep_jni_string_array(types, n),
							 (jint) batch->capacity,
							 pep_jni_int_array(batch->null_offsets, n),
							 pep_jni_int_array(batch->value_offsets, n),
							 pep_jni_direct_buffer(batch->buf, batch->size),
							 pep_jvm_string(options),
							 pep_jni_string_array((const char *const *) flat.names, nnodes),
							 pep_jni_int_array(flat.kinds, nnodes),
							 pep_jni_int_array(flat.precisions, nnodes),
							 pep_jni_int_array(flat.scales, nnodes),
							 pep_jni_int_array(flat.nchildren, nnodes)));
	/* Resolved now, so that a jar that does not match fails before any row. */
	pep_jni_resolve(&pep_sink_set_buffer_m);
	pep_jni_resolve(&pep_sink_open_part_m);
	pep_jni_resolve(&pep_sink_write_batch_m);
	pep_jni_resolve(&pep_sink_close_part_m);
	pep_jni_resolve(&pep_sink_part_size_m);
	pep_jni_resolve(&pep_sink_part_size_limit_m);
	pep_jni_resolve(&pep_sink_select_part_m);
	pep_jni_resolve(&pep_sink_part_to_finish_m);
	batch->grown = false;
	return sink;
}

void
pep_sink_open_part(PEPSink *sink, const char *path, const char *display)
{
	jstring jpath = pep_jvm_string_utf8(path);

	if (sink->write_msg)
		pfree(sink->write_msg);
	if (sink->close_msg)
		pfree(sink->close_msg);
	sink->write_msg = MemoryContextStrdup(TopMemoryContext, psprintf("could not write parquet part \"%s\"", display));
	sink->close_msg = MemoryContextStrdup(TopMemoryContext, psprintf("could not finish parquet part \"%s\"", display));

	pep_sink_java_open_part(sink->sink, jpath,
							psprintf("could not create parquet part \"%s\"", display));
	pep_jni_delete_local(jpath);
}

void
pep_sink_write_batch(PEPSink *sink, PEPBatch *batch)
{
	if (batch->grown)
	{
		jobject buffer = pep_jni_direct_buffer(batch->buf, batch->size);

		pep_sink_java_set_buffer(sink->sink, buffer);
		pep_jni_delete_local(buffer);
		batch->grown = false;
	}
	pep_sink_java_write_batch(sink->sink, (jint) batch->nrows, sink->write_msg);
}

/* The next write throws, as a failure inside the writer would (pep_fault.c, java_error). */
void
pep_sink_fail_next_batch(PEPSink *sink)
{
	pep_sink_java_fail_next_batch(sink->sink);
}

uint64
pep_sink_close_part(PEPSink *sink)
{
	return (uint64) pep_sink_java_close_part(sink->sink, sink->close_msg);
}

/* Bytes the open part will take: written so far plus its buffered row group. */
uint64
pep_sink_part_size(PEPSink *sink)
{
	return (uint64) pep_sink_java_part_size(sink->sink, sink->write_msg);
}

/*
 * Bytes past which a part must end for its kind of file to hold it (one
 * object-store upload's parts are numbered to 10,000); PG_UINT64_MAX for
 * local files.
 */
uint64
pep_sink_part_size_limit(PEPSink *sink)
{
	jlong limit = pep_sink_java_part_size_limit(sink->sink);

	return limit > 0 ? (uint64) limit : PG_UINT64_MAX;
}

/* The BatchSink itself, for calls that hand it to other Java objects. */
jobject
pep_sink_object(PEPSink *sink)
{
	return sink->sink;
}

/* Make slot the part the other calls act on (a partitioned export's worker). */
void
pep_sink_select_part(PEPSink *sink, int slot)
{
	pep_sink_java_select_part(sink->sink, (jint) slot);
}

/*
 * The slot of an open part to finish now to bring the open parts back
 * within their memory budget, or -1 (a partitioned export's worker).
 */
int
pep_sink_part_to_finish(PEPSink *sink)
{
	return (int) pep_sink_java_part_to_finish(sink->sink);
}
