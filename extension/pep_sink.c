/*-------------------------------------------------------------------------
 *
 * pep_sink.c
 *	  Calls from a worker into its Java writer.
 *
 * C drives and Java is a sink: each call hands Java one batch or one part
 * event and returns, so a worker spends at most one batch's encoding time
 * inside Java and reaches CHECK_FOR_INTERRUPTS again soon after a cancel.
 * Every call goes through pep_jvm_call_begin/end, which turn a Java
 * exception into an ERROR naming what the worker was doing.
 *
 * IDENTIFICATION
 *	  extension/pep_sink.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "pep_jvm.h"
#include "pep_sink.h"
#include "utils/memutils.h"

#define PEP_SINK_CLASS	"org/parallelexport/parquet/BatchSink"

struct PEPSink
{
	jobject		sink;			/* global ref to the BatchSink */
	jmethodID	set_buffer;		/* BatchSink.setBuffer */
	jmethodID	open_part;		/* BatchSink.openPart */
	jmethodID	write_batch;	/* BatchSink.writeBatch */
	jmethodID	close_part;		/* BatchSink.closePart */
	jmethodID	part_size;		/* BatchSink.partSize */
	jmethodID	select_part;	/* BatchSink.selectPart */
	jmethodID	part_to_finish; /* BatchSink.partToFinish */
	char	   *write_msg;		/* error message of a failed write of this part */
	char	   *close_msg;		/* error message of a failed close of this part */
};

static jintArray
pep_int_array(JNIEnv *env, const int *values, int n)
{
	jintArray	arr = (*env)->NewIntArray(env, n);
	jint	   *tmp = palloc(sizeof(jint) * Max(n, 1));

	for (int i = 0; i < n; i++)
		tmp[i] = values[i];
	if (arr != NULL)
		(*env)->SetIntArrayRegion(env, arr, 0, n, tmp);
	pfree(tmp);
	return arr;
}

static jobjectArray
pep_string_array(JNIEnv *env, const PEPColumn *columns, int n, bool types)
{
	jclass		string_class = pep_jvm_class("java/lang/String");
	jobjectArray arr = (*env)->NewObjectArray(env, n, string_class, NULL);

	for (int i = 0; i < n && arr != NULL; i++)
	{
		jstring		s = pep_jvm_string(types ? columns[i].pgtype : columns[i].name);

		(*env)->SetObjectArrayElement(env, arr, i, s);
		(*env)->DeleteLocalRef(env, s);
	}
	return arr;
}

static jobjectArray
pep_cstring_array(JNIEnv *env, char **values, int n)
{
	jclass		string_class = pep_jvm_class("java/lang/String");
	jobjectArray arr = (*env)->NewObjectArray(env, n, string_class, NULL);

	for (int i = 0; i < n && arr != NULL; i++)
	{
		jstring		s = pep_jvm_string(values[i]);

		(*env)->SetObjectArrayElement(env, arr, i, s);
		(*env)->DeleteLocalRef(env, s);
	}
	return arr;
}

/* The column type trees in pre-order, every column's root included, as parallel arrays. */
typedef struct PEPFlatNodes
{
	int			n;				/* nodes so far */
	char	  **names;			/* per node: name */
	int		   *kinds;			/* per node: PEPKind */
	int		   *precisions;		/* per node: DECIMAL precision */
	int		   *scales;			/* per node: DECIMAL scale */
	int		   *nchildren;		/* per node: children, which follow it */
} PEPFlatNodes;

static void
pep_flatten_tree(PEPFlatNodes *flat, const PEPNode *node)
{
	int			i = flat->n++;

	flat->names[i] = node->name;
	flat->kinds[i] = node->kind;
	flat->precisions[i] = node->precision;
	flat->scales[i] = node->scale;
	flat->nchildren[i] = node->nchildren;
	for (int c = 0; c < node->nchildren; c++)
		pep_flatten_tree(flat, node->children[c]);
}

static jobject
pep_direct_buffer(JNIEnv *env, PEPBatch *batch)
{
	return (*env)->NewDirectByteBuffer(env, batch->buf, (jlong) batch->size);
}

PEPSink *
pep_sink_create(PEPBatch *batch, const char *options)
{
	JNIEnv	   *env = pep_jvm_env();
	PEPSink    *sink = MemoryContextAllocZero(TopMemoryContext, sizeof(PEPSink));
	jclass		cls = pep_jvm_class(PEP_SINK_CLASS);
	jmethodID	create;
	int			n = batch->ncolumns;
	int		   *kinds = palloc(sizeof(int) * Max(n, 1));
	int		   *precisions = palloc(sizeof(int) * Max(n, 1));
	int		   *scales = palloc(sizeof(int) * Max(n, 1));
	jobject		local;
	jobjectArray names;
	jobjectArray types;
	jintArray	jkinds;
	jintArray	jprecisions;
	jintArray	jscales;
	jintArray	jnulls;
	jintArray	jvalues;
	jobject		buffer;
	jstring		joptions;
	PEPFlatNodes flat;
	int			nnodes = 0;
	jobjectArray jnode_names;
	jintArray	jnode_kinds;
	jintArray	jnode_precisions;
	jintArray	jnode_scales;
	jintArray	jnode_children;
	sigset_t	saved;

	for (int i = 0; i < n; i++)
	{
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

	create = pep_jvm_method(cls, "create",
							"([Ljava/lang/String;[I[I[I[Ljava/lang/String;I[I[I"
							"Ljava/nio/ByteBuffer;Ljava/lang/String;"
							"[Ljava/lang/String;[I[I[I[I)L" PEP_SINK_CLASS ";",
							true);
	sink->set_buffer = pep_jvm_method(cls, "setBuffer", "(Ljava/nio/ByteBuffer;)V", false);
	sink->open_part = pep_jvm_method(cls, "openPart", "(Ljava/lang/String;)V", false);
	sink->write_batch = pep_jvm_method(cls, "writeBatch", "(I)V", false);
	sink->close_part = pep_jvm_method(cls, "closePart", "()J", false);
	sink->part_size = pep_jvm_method(cls, "partSize", "()J", false);
	sink->select_part = pep_jvm_method(cls, "selectPart", "(I)V", false);
	sink->part_to_finish = pep_jvm_method(cls, "partToFinish", "()I", false);

	/* Build every argument first: the call itself must be the only thing between begin and end. */
	names = pep_string_array(env, batch->columns, n, false);
	types = pep_string_array(env, batch->columns, n, true);
	jkinds = pep_int_array(env, kinds, n);
	jprecisions = pep_int_array(env, precisions, n);
	jscales = pep_int_array(env, scales, n);
	jnulls = pep_int_array(env, batch->null_offsets, n);
	jvalues = pep_int_array(env, batch->value_offsets, n);
	buffer = pep_direct_buffer(env, batch);
	joptions = pep_jvm_string(options);
	jnode_names = pep_cstring_array(env, flat.names, nnodes);
	jnode_kinds = pep_int_array(env, flat.kinds, nnodes);
	jnode_precisions = pep_int_array(env, flat.precisions, nnodes);
	jnode_scales = pep_int_array(env, flat.scales, nnodes);
	jnode_children = pep_int_array(env, flat.nchildren, nnodes);
	if (names == NULL || types == NULL || jkinds == NULL || jprecisions == NULL ||
		jscales == NULL || jnulls == NULL || jvalues == NULL || buffer == NULL ||
		jnode_names == NULL || jnode_kinds == NULL || jnode_precisions == NULL ||
		jnode_scales == NULL || jnode_children == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_OUT_OF_MEMORY),
				 errmsg("out of memory in the java virtual machine")));

	pep_jvm_call_begin(&saved);
	local = (*env)->CallStaticObjectMethod(env, cls, create, names, jkinds, jprecisions,
										   jscales, types, (jint) batch->capacity,
										   jnulls, jvalues, buffer, joptions, jnode_names,
										   jnode_kinds, jnode_precisions, jnode_scales,
										   jnode_children);
	pep_jvm_call_end(&saved, "could not set up the parquet writer");
	sink->sink = (*env)->NewGlobalRef(env, local);
	(*env)->DeleteLocalRef(env, local);
	batch->grown = false;
	return sink;
}

void
pep_sink_open_part(PEPSink *sink, const char *path, const char *display)
{
	JNIEnv	   *env = pep_jvm_env();
	jstring		jpath = pep_jvm_string(path);
	char	   *open_msg = psprintf("could not create parquet part \"%s\"", display);
	sigset_t	saved;

	if (sink->write_msg)
		pfree(sink->write_msg);
	if (sink->close_msg)
		pfree(sink->close_msg);
	sink->write_msg = MemoryContextStrdup(TopMemoryContext, psprintf("could not write parquet part \"%s\"", display));
	sink->close_msg = MemoryContextStrdup(TopMemoryContext, psprintf("could not finish parquet part \"%s\"", display));

	pep_jvm_call_begin(&saved);
	(*env)->CallVoidMethod(env, sink->sink, sink->open_part, jpath);
	pep_jvm_call_end(&saved, open_msg);
	(*env)->DeleteLocalRef(env, jpath);
}

void
pep_sink_write_batch(PEPSink *sink, PEPBatch *batch)
{
	JNIEnv	   *env = pep_jvm_env();
	sigset_t	saved;

	if (batch->grown)
	{
		jobject		buffer = pep_direct_buffer(env, batch);

		pep_jvm_call_begin(&saved);
		(*env)->CallVoidMethod(env, sink->sink, sink->set_buffer, buffer);
		pep_jvm_call_end(&saved, "could not pass a batch buffer to the parquet writer");
		(*env)->DeleteLocalRef(env, buffer);
		batch->grown = false;
	}

	pep_jvm_call_begin(&saved);
	(*env)->CallVoidMethod(env, sink->sink, sink->write_batch, (jint) batch->nrows);
	pep_jvm_call_end(&saved, sink->write_msg);
}

uint64
pep_sink_close_part(PEPSink *sink)
{
	JNIEnv	   *env = pep_jvm_env();
	jlong		bytes;
	sigset_t	saved;

	pep_jvm_call_begin(&saved);
	bytes = (*env)->CallLongMethod(env, sink->sink, sink->close_part);
	pep_jvm_call_end(&saved, sink->close_msg);
	return (uint64) bytes;
}

/* Bytes the open part will take: written so far plus its buffered row group. */
uint64
pep_sink_part_size(PEPSink *sink)
{
	JNIEnv	   *env = pep_jvm_env();
	jlong		bytes;
	sigset_t	saved;

	pep_jvm_call_begin(&saved);
	bytes = (*env)->CallLongMethod(env, sink->sink, sink->part_size);
	pep_jvm_call_end(&saved, sink->write_msg);
	return (uint64) bytes;
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
	JNIEnv	   *env = pep_jvm_env();
	sigset_t	saved;

	pep_jvm_call_begin(&saved);
	(*env)->CallVoidMethod(env, sink->sink, sink->select_part, (jint) slot);
	pep_jvm_call_end(&saved, "could not switch parquet parts");
}

/*
 * The slot of an open part to finish now to bring the open parts back
 * within their memory budget, or -1 (a partitioned export's worker).
 */
int
pep_sink_part_to_finish(PEPSink *sink)
{
	JNIEnv	   *env = pep_jvm_env();
	jint		slot;
	sigset_t	saved;

	pep_jvm_call_begin(&saved);
	slot = (*env)->CallIntMethod(env, sink->sink, sink->part_to_finish);
	pep_jvm_call_end(&saved, "could not measure the parquet parts' memory");
	return (int) slot;
}
