/*-------------------------------------------------------------------------
 *
 * pep_jni.c
 *	  Checked calls into the JVM (see pep_jni.h).
 *
 * Each function brackets its JNI call with pep_jvm_call_begin and
 * pep_jvm_call_end, which block PostgreSQL's signals while Java runs and
 * raise the ERROR for a pending exception once the Java frame has
 * returned; so the rule "check after every call" is kept here, once, and
 * nowhere else.  A Java method's descriptor is checked against the class
 * when it is resolved (GetMethodID), and its return type against the
 * function that calls it, so a descriptor that disagrees with its typed
 * caller fails the first export that uses it instead of misreading a
 * return value.
 *
 * IDENTIFICATION
 *	  pljava-glue/pep_jni.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <stdarg.h>

#include "mb/pg_wchar.h"

#include "pep_jni.h"
#include "pep_jvm.h"
/* This file is part of the glue: it may include pep_jvm_internal.h. */
#define PEP_JVM_GLUE
#include "pep_jvm_internal.h"

void
pep_jni_resolve(PEPJavaMethod *m)
{
	if (m->id != NULL)
		return;
	if (m->cls == NULL)
		m->cls = pep_jvm_class(m->class_name);
	m->id = pep_jvm_method(m->cls, m->name, m->descriptor, m->is_static);
}

/*
 * Resolve m for a call that returns what the descriptor letters in returns
 * name; a mismatch is a bug in the typed caller.
 */
static void
pep_jni_prepare(PEPJavaMethod *m, jobject self, const char *returns)
{
	const char *ret = strrchr(m->descriptor, ')');

	if (ret == NULL || ret[1] == '\0' || strchr(returns, ret[1]) == NULL ||
		m->is_static != (self == NULL))
		elog(ERROR, "Java method %s.%s%s called as a%s method returning one of \"%s\"",
			 m->class_name, m->name, m->descriptor, self == NULL ? " static" : "n instance",
			 returns);
	pep_jni_resolve(m);
}

void
pep_jni_call_void(PEPJavaMethod *m, jobject self, const char *what, ...)
{
	JNIEnv *env = pep_jvm_env();
	va_list args;
	sigset_t saved;

	pep_jni_prepare(m, self, "V");
	va_start(args, what);
	pep_jvm_call_begin(&saved);
	if (self == NULL)
		(*env)->CallStaticVoidMethodV(env, m->cls, m->id, args);
	else
		(*env)->CallVoidMethodV(env, self, m->id, args);
	pep_jvm_call_end(&saved, what);
	va_end(args);
}

jobject
pep_jni_call_object(PEPJavaMethod *m, jobject self, const char *what, ...)
{
	JNIEnv *env = pep_jvm_env();
	va_list args;
	sigset_t saved;
	jobject result;

	pep_jni_prepare(m, self, "L[");
	va_start(args, what);
	pep_jvm_call_begin(&saved);
	if (self == NULL)
		result = (*env)->CallStaticObjectMethodV(env, m->cls, m->id, args);
	else
		result = (*env)->CallObjectMethodV(env, self, m->id, args);
	pep_jvm_call_end(&saved, what);
	va_end(args);
	return result;
}

bool
pep_jni_call_boolean(PEPJavaMethod *m, jobject self, const char *what, ...)
{
	JNIEnv *env = pep_jvm_env();
	va_list args;
	sigset_t saved;
	jboolean result;

	pep_jni_prepare(m, self, "Z");
	va_start(args, what);
	pep_jvm_call_begin(&saved);
	if (self == NULL)
		result = (*env)->CallStaticBooleanMethodV(env, m->cls, m->id, args);
	else
		result = (*env)->CallBooleanMethodV(env, self, m->id, args);
	pep_jvm_call_end(&saved, what);
	va_end(args);
	return result != JNI_FALSE;
}

jint
pep_jni_call_int(PEPJavaMethod *m, jobject self, const char *what, ...)
{
	JNIEnv *env = pep_jvm_env();
	va_list args;
	sigset_t saved;
	jint result;

	pep_jni_prepare(m, self, "I");
	va_start(args, what);
	pep_jvm_call_begin(&saved);
	if (self == NULL)
		result = (*env)->CallStaticIntMethodV(env, m->cls, m->id, args);
	else
		result = (*env)->CallIntMethodV(env, self, m->id, args);
	pep_jvm_call_end(&saved, what);
	va_end(args);
	return result;
}

jlong
pep_jni_call_long(PEPJavaMethod *m, jobject self, const char *what, ...)
{
	JNIEnv *env = pep_jvm_env();
	va_list args;
	sigset_t saved;
	jlong result;

	pep_jni_prepare(m, self, "J");
	va_start(args, what);
	pep_jvm_call_begin(&saved);
	if (self == NULL)
		result = (*env)->CallStaticLongMethodV(env, m->cls, m->id, args);
	else
		result = (*env)->CallLongMethodV(env, self, m->id, args);
	pep_jvm_call_end(&saved, what);
	va_end(args);
	return result;
}

jobject
pep_jni_call_object_noerror(PEPJavaMethod *m, jobject self, bool *failed, ...)
{
	JNIEnv *env = pep_jvm_env();
	va_list args;
	sigset_t saved;
	jobject result;

	Assert(m->id != NULL && !m->is_static && self != NULL);
	va_start(args, failed);
	pep_jvm_call_begin(&saved);
	result = (*env)->CallObjectMethodV(env, self, m->id, args);
	*failed = pep_jvm_call_end_noerror(&saved);
	va_end(args);
	return *failed ? NULL : result;
}

jobject
pep_jni_global(jobject local)
{
	JNIEnv *env = pep_jvm_env();
	jobject global;
	sigset_t saved;

	pep_jvm_call_begin(&saved);
	global = (*env)->NewGlobalRef(env, local);
	pep_jvm_call_end(&saved, "out of memory in the java virtual machine");
	(*env)->DeleteLocalRef(env, local);
	if (global == NULL && local != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_OUT_OF_MEMORY),
				 errmsg("out of memory in the java virtual machine")));
	return global;
}

void
pep_jni_delete_local(jobject local)
{
	JNIEnv *env = pep_jvm_env();

	if (local != NULL)
		(*env)->DeleteLocalRef(env, local);
}

void
pep_jni_delete_global(jobject global)
{
	JNIEnv *env = pep_jvm_env();

	if (global != NULL)
		(*env)->DeleteGlobalRef(env, global);
}

/* After a JNI allocation: ERROR if it failed, with the exception if one is pending. */
static void
pep_jni_allocated(sigset_t *saved, void *made)
{
	pep_jvm_call_end(saved, "out of memory in the java virtual machine");
	if (made == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_OUT_OF_MEMORY),
				 errmsg("out of memory in the java virtual machine")));
}

jintArray
pep_jni_int_array(const int *values, int n)
{
	JNIEnv *env = pep_jvm_env();
	jint *tmp = palloc(sizeof(jint) * Max(n, 1));
	jintArray arr;
	sigset_t saved;

	for (int i = 0; i < n; i++)
		tmp[i] = values[i];
	pep_jvm_call_begin(&saved);
	arr = (*env)->NewIntArray(env, n);
	if (arr != NULL)
		(*env)->SetIntArrayRegion(env, arr, 0, n, tmp);
	pep_jni_allocated(&saved, arr);
	pfree(tmp);
	return arr;
}

jlongArray
pep_jni_long_array(const int64 *values, int n)
{
	JNIEnv *env = pep_jvm_env();
	jlong *tmp = palloc(sizeof(jlong) * Max(n, 1));
	jlongArray arr;
	sigset_t saved;

	for (int i = 0; i < n; i++)
		tmp[i] = (jlong) values[i];
	pep_jvm_call_begin(&saved);
	arr = (*env)->NewLongArray(env, n);
	if (arr != NULL)
		(*env)->SetLongArrayRegion(env, arr, 0, n, tmp);
	pep_jni_allocated(&saved, arr);
	pfree(tmp);
	return arr;
}

/* A String[] of values, each made a Java string by make. */
static jobjectArray
pep_jni_array_of(const char *const *values, int n, jstring (*make)(const char *))
{
	static jclass string_class = NULL;
	JNIEnv *env = pep_jvm_env();
	jobjectArray arr;
	sigset_t saved;

	if (string_class == NULL)
		string_class = pep_jvm_class("java/lang/String");
	pep_jvm_call_begin(&saved);
	arr = (*env)->NewObjectArray(env, n, string_class, NULL);
	pep_jni_allocated(&saved, arr);
	for (int i = 0; i < n; i++)
	{
		jstring s = make(values[i]);

		pep_jvm_call_begin(&saved);
		(*env)->SetObjectArrayElement(env, arr, i, s);
		pep_jvm_call_end(&saved, "out of memory in the java virtual machine");
		(*env)->DeleteLocalRef(env, s);
	}
	return arr;
}

jobjectArray
pep_jni_string_array(const char *const *values, int n)
{
	return pep_jni_array_of(values, n, pep_jvm_string);
}

jobjectArray
pep_jni_utf8_array(const char *const *values, int n)
{
	return pep_jni_array_of(values, n, pep_jvm_string_utf8);
}

jobject
pep_jni_direct_buffer(void *address, Size size)
{
	JNIEnv *env = pep_jvm_env();
	jobject buffer;
	sigset_t saved;

	pep_jvm_call_begin(&saved);
	buffer = (*env)->NewDirectByteBuffer(env, address, (jlong) size);
	pep_jni_allocated(&saved, buffer);
	return buffer;
}

char *
pep_jni_cstring(jstring s)
{
	JNIEnv *env = pep_jvm_env();
	const char *utf;
	char *result;
	sigset_t saved;

	if (s == NULL)
		return NULL;
	pep_jvm_call_begin(&saved);
	utf = (*env)->GetStringUTFChars(env, s, NULL);
	pep_jni_allocated(&saved, (void *) utf);
	result = pstrdup(pg_any_to_server(utf, strlen(utf), PG_UTF8));
	(*env)->ReleaseStringUTFChars(env, s, utf);
	(*env)->DeleteLocalRef(env, s);
	return result;
}

/* A copy of a Java byte[] in palloc'd memory, its length in *len; the local reference is dropped. */
char *
pep_jni_bytes(jbyteArray bytes, Size *len)
{
	JNIEnv *env = pep_jvm_env();
	jsize n;
	char *result;
	sigset_t saved;

	pep_jvm_call_begin(&saved);
	n = (*env)->GetArrayLength(env, bytes);
	pep_jvm_call_end(&saved, "could not read a java byte array");
	result = palloc(Max(n, 1));
	pep_jvm_call_begin(&saved);
	(*env)->GetByteArrayRegion(env, bytes, 0, n, (jbyte *) result);
	pep_jvm_call_end(&saved, "could not read a java byte array");
	(*env)->DeleteLocalRef(env, bytes);
	*len = (Size) n;
	return result;
}
