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
	sigset_t	saved;

	for (int i = 0; i < n; i++)
	{
		kinds[i] = batch->columns[i].kind;
		precisions[i] = batch->columns[i].precision;
		scales[i] = batch->columns[i].scale;
	}

	create = pep_jvm_method(cls, "create",
							"([Ljava/lang/String;[I[I[I[Ljava/lang/String;I[I[I"
							"Ljava/nio/ByteBuffer;Ljava/lang/String;)L" PEP_SINK_CLASS ";",
							true);
	sink->set_buffer = pep_jvm_method(cls, "setBuffer", "(Ljava/nio/ByteBuffer;)V", false);
	sink->open_part = pep_jvm_method(cls, "openPart", "(Ljava/lang/String;)V", false);
	sink->write_batch = pep_jvm_method(cls, "writeBatch", "(I)V", false);
	sink->close_part = pep_jvm_method(cls, "closePart", "()J", false);

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
	if (names == NULL || types == NULL || jkinds == NULL || jprecisions == NULL ||
		jscales == NULL || jnulls == NULL || jvalues == NULL || buffer == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_OUT_OF_MEMORY),
				 errmsg("out of memory in the java virtual machine")));

	pep_jvm_call_begin(&saved);
	local = (*env)->CallStaticObjectMethod(env, cls, create, names, jkinds, jprecisions,
										   jscales, types, (jint) batch->capacity,
										   jnulls, jvalues, buffer, joptions);
	pep_jvm_call_end(&saved, "could not set up the parquet writer");
	sink->sink = (*env)->NewGlobalRef(env, local);
	(*env)->DeleteLocalRef(env, local);
	batch->grown = false;
	return sink;
}

void
pep_sink_open_part(PEPSink *sink, const char *path)
{
	JNIEnv	   *env = pep_jvm_env();
	jstring		jpath = pep_jvm_string(path);
	char	   *open_msg = psprintf("could not create parquet part \"%s\"", path);
	sigset_t	saved;

	if (sink->write_msg)
		pfree(sink->write_msg);
	if (sink->close_msg)
		pfree(sink->close_msg);
	sink->write_msg = MemoryContextStrdup(TopMemoryContext, psprintf("could not write parquet part \"%s\"", path));
	sink->close_msg = MemoryContextStrdup(TopMemoryContext, psprintf("could not finish parquet part \"%s\"", path));

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
