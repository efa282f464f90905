/*-------------------------------------------------------------------------
 *
 * pep_jni.h
 *	  Checked calls into the JVM: the only way the extension talks to Java.
 *
 * The extension never holds a JNIEnv.  Every call into Java, every Java
 * object it makes and every reference it keeps goes through a function
 * here, which blocks PostgreSQL's signals around the call and, once the
 * Java frame has returned, turns a pending exception into ereport(ERROR)
 * in one place (pep_jvm.c describes the exception and picks its SQLSTATE).
 *
 * A Java method C calls is a PEPJavaMethod: its class, name and JNI
 * descriptor, written once, next to the one typed C function that calls
 * it.  That function is the method's only caller, so its C prototype and
 * the descriptor sit side by side and every other call site is checked by
 * the compiler against the prototype, never passed through "...".  The
 * variadic pep_jni_call_* below are for those typed callers only; each
 * checks that the descriptor's return type is the one it returns, and
 * GetMethodID checks the descriptor against the loaded class.
 *
 *	static PEPJavaMethod pep_sink_open_part_m =
 *		PEP_JAVA_METHOD(PEP_SINK_CLASS, "openPart", "(" PEP_JSTRING ")V");
 *
 *	static void
 *	pep_sink_java_open_part(jobject sink, jstring path, const char *what)
 *	{
 *		pep_jni_call_void(&pep_sink_open_part_m, sink, what, path);
 *	}
 *
 * IDENTIFICATION
 *	  pljava-glue/pep_jni.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef PEP_JNI_H
#define PEP_JNI_H

#include <jni.h>

/* A Java method that C calls; resolved on first use or by pep_jni_resolve. */
typedef struct PEPJavaMethod
{
	const char *class_name; /* "org/parallelexport/parquet/BatchSink" */
	const char *name;		/* "openPart" */
	const char *descriptor; /* "(Ljava/lang/String;)V" */
	bool is_static;			/* a static method: called with a NULL object */
	jclass cls;				/* global reference, once resolved */
	jmethodID id;			/* once resolved */
} PEPJavaMethod;

#define PEP_JAVA_METHOD(class_name, name, descriptor)         \
	{                                                         \
		(class_name), (name), (descriptor), false, NULL, NULL \
	}
#define PEP_JAVA_STATIC(class_name, name, descriptor)        \
	{                                                        \
		(class_name), (name), (descriptor), true, NULL, NULL \
	}

/* Descriptor pieces for the types that cross the boundary. */
#define PEP_JSTRING		  "Ljava/lang/String;"
#define PEP_JSTRING_ARRAY "[Ljava/lang/String;"
#define PEP_JBYTEBUFFER	  "Ljava/nio/ByteBuffer;"

/* Resolve m now, or raise ERROR: for callers that must not fail later. */
extern void pep_jni_resolve(PEPJavaMethod *m);

/*
 * Call m on self (NULL for a static method) with the arguments its
 * descriptor names.  If Java throws, raise ERROR with what as the primary
 * message and the exception in the detail.  An object returned is a local
 * reference.
 */
extern void pep_jni_call_void(PEPJavaMethod *m, jobject self, const char *what, ...);
extern jobject pep_jni_call_object(PEPJavaMethod *m, jobject self, const char *what, ...);
extern bool pep_jni_call_boolean(PEPJavaMethod *m, jobject self, const char *what, ...);
extern jint pep_jni_call_int(PEPJavaMethod *m, jobject self, const char *what, ...);
extern jlong pep_jni_call_long(PEPJavaMethod *m, jobject self, const char *what, ...);

/*
 * The same for an object-returning call where an ERROR cannot be raised
 * (an exit callback): a Java exception is cleared and *failed set instead.
 * m must have been resolved (pep_jni_resolve).
 */
extern jobject pep_jni_call_object_noerror(PEPJavaMethod *m, jobject self, bool *failed, ...);

/* References: a global reference to local (which is deleted), and deletion. */
extern jobject pep_jni_global(jobject local);
extern void pep_jni_delete_local(jobject local);
extern void pep_jni_delete_global(jobject global);

/* Java values made from C ones; ERROR if the JVM cannot make them. */
extern jintArray pep_jni_int_array(const int *values, int n);
extern jlongArray pep_jni_long_array(const int64 *values, int n);
extern jobjectArray pep_jni_string_array(const char *const *values, int n);
extern jobjectArray pep_jni_utf8_array(const char *const *values, int n);
extern jobject pep_jni_direct_buffer(void *address, Size size);

/*
 * A Java string from a server-encoded C string, and back (NULL for null;
 * deletes s).  Text is converted to or from UTF-8 here and nowhere else,
 * except for the names the extension writes (object keys, partition
 * folders, ledger records), which are made UTF-8 once where they are made
 * and cross with pep_jvm_string_utf8 and pep_jni_utf8_array, unconverted
 * (DESIGN.md, "Names are UTF-8").
 */
extern jstring pep_jvm_string(const char *s);
extern jstring pep_jvm_string_utf8(const char *utf8);
extern char *pep_jni_cstring(jstring s);
extern char *pep_jni_bytes(jbyteArray bytes, Size *len);

#endif /* PEP_JNI_H */
