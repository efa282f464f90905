package org.parallelexport.parquet;

import java.util.List;

/**
 * JniMethods: every Java method and class that C resolves through JNI, listed once.
 *
 * <p>C names a Java method by class, name and descriptor, strings the C compiler cannot check and
 * the JVM checks only when the method is resolved. This list is the one place they are written: the
 * C build runs main (extension/Makefile) to make generated/pep_jni_methods.h, whose macros
 * (PEP_JNI_SINK_OPEN_PART, ...) are the only way C spells a method, and JniMethodsTest resolves
 * every entry against the writer's classes by reflection, so a method renamed, retyped or made
 * static on the Java side fails the Maven build instead of the first export that calls it. The
 * class depends on nothing but java.base, so the C build compiles it without Maven.
 */
public final class JniMethods {
  /** A method C resolves: macro is the C name after PEP_JNI_, descriptor its JNI descriptor. */
  public record Method(
      String macro, String className, String name, String descriptor, boolean isStatic) {}

  /** A class C looks up by name (FindClass) without calling a method of it. */
  public record Klass(String macro, String className) {}

  static final String SINK = "org/parallelexport/parquet/BatchSink";
  static final String MANIFEST = "org/parallelexport/parquet/Manifest";
  static final String S3_EXPORT = "org/parallelexport/parquet/s3/S3Export";
  static final String S3_SWEEP = "org/parallelexport/parquet/s3/S3Sweep";

  private static final String STRING = "Ljava/lang/String;";
  private static final String STRINGS = "[Ljava/lang/String;";
  private static final String BUFFER = "Ljava/nio/ByteBuffer;";
  private static final String SINK_TYPE = "L" + SINK + ";";

  /**
   * extension/src/worker/pep_sink.c (BatchSink), extension/src/output/pep_manifest.c (Manifest),
   * extension/src/output/s3/pep_s3worker.c, extension/src/output/s3/pep_s3sweep.c.
   */
  public static final List<Method> METHODS =
      List.of(
          call(
              "SINK_CREATE",
              SINK,
              "create",
              "("
                  + STRINGS
                  + "[I[I[I"
                  + STRINGS
                  + "I[I[I"
                  + BUFFER
                  + STRING
                  + STRINGS
                  + "[I[I[I[I)"
                  + SINK_TYPE,
              true),
          call("SINK_SET_BUFFER", SINK, "setBuffer", "(" + BUFFER + ")V", false),
          call("SINK_OPEN_PART", SINK, "openPart", "(" + STRING + ")V", false),
          call("SINK_WRITE_BATCH", SINK, "writeBatch", "(I)V", false),
          call("SINK_FAIL_NEXT_BATCH", SINK, "failNextBatch", "()V", false),
          call("SINK_CLOSE_PART", SINK, "closePart", "()J", false),
          call("SINK_PART_SIZE", SINK, "partSize", "()J", false),
          call("SINK_PART_SIZE_LIMIT", SINK, "partSizeLimit", "()J", false),
          call("SINK_SELECT_PART", SINK, "selectPart", "(I)V", false),
          call("SINK_PART_TO_FINISH", SINK, "partToFinish", "()I", false),
          call(
              "MANIFEST_LOCAL",
              MANIFEST,
              "local",
              "(" + SINK_TYPE + STRINGS + "[J[J" + STRING + STRING + ")[B",
              true),
          call(
              "S3EXPORT_OPEN",
              S3_EXPORT,
              "open",
              "(" + STRING + STRING + STRING + STRING + STRING + STRING + ")L" + S3_EXPORT + ";",
              true),
          call("S3EXPORT_ATTACH", S3_EXPORT, "attach", "(" + SINK_TYPE + ")V", false),
          call("S3EXPORT_START_SWEEP", S3_EXPORT, "startSweep", "()V", false),
          call("S3EXPORT_SWEEP_STEP", S3_EXPORT, "sweepStep", "()Z", false),
          call("S3EXPORT_PART_CLOSED", S3_EXPORT, "partClosed", "()V", false),
          call("S3EXPORT_START_CHECKS", S3_EXPORT, "startChecks", "()V", false),
          call("S3EXPORT_PROBE", S3_EXPORT, "probe", "()V", false),
          call("S3EXPORT_FIRST_KEY", S3_EXPORT, "firstKey", "()" + STRING, false),
          call(
              "S3EXPORT_PREVIOUS_EXPORT_PROBLEM",
              S3_EXPORT,
              "previousExportProblem",
              "()" + STRING,
              false),
          call("S3EXPORT_COMPLETE_ALL", S3_EXPORT, "completeAll", "()V", false),
          call(
              "S3EXPORT_WRITE_SUCCESS",
              S3_EXPORT,
              "writeSuccess",
              "(" + SINK_TYPE + STRINGS + "[J[J" + STRING + STRING + ")V",
              false),
          call("S3EXPORT_SEAL_WITH", S3_EXPORT, "sealWith", "(" + STRING + ")V", false),
          call("S3EXPORT_SUPERSEDE", S3_EXPORT, "supersede", "()" + STRING, false),
          call("S3EXPORT_DELETE_SUPERSEDED", S3_EXPORT, "deleteSuperseded", "()" + STRING, false),
          call("S3EXPORT_INJECT_FAULT", S3_EXPORT, "injectFault", "(" + STRING + ")V", false),
          call("S3EXPORT_UNDO", S3_EXPORT, "undo", "(Z)" + STRING, false),
          call(
              "S3SWEEP_OPEN",
              S3_SWEEP,
              "open",
              "(" + STRING + STRING + STRING + STRING + ")L" + S3_SWEEP + ";",
              true),
          call("S3SWEEP_STEP", S3_SWEEP, "step", "()Z", false),
          call("S3SWEEP_UPLOADS_ABORTED", S3_SWEEP, "uploadsAborted", "()I", false),
          call("S3SWEEP_OBJECTS_DELETED", S3_SWEEP, "objectsDeleted", "()I", false),
          call("S3SWEEP_CLOSE", S3_SWEEP, "close", "()V", false),
          call("S3SWEEP_INJECT_FAULT", S3_SWEEP, "injectFault", "(" + STRING + ")V", false));

  /** pljava-glue/pep_jvm.c: the exception class that maps to disk_full. */
  public static final List<Klass> CLASSES =
      List.of(new Klass("DISK_FULL_EXCEPTION", "org/parallelexport/parquet/DiskFullException"));

  private static Method call(
      String macro, String className, String name, String descriptor, boolean isStatic) {
    return new Method(macro, className, name, descriptor, isStatic);
  }

  private static String quote(String s) {
    return "\"" + s + "\"";
  }

  private static long count(String className) {
    return METHODS.stream().filter(m -> m.className().equals(className)).count();
  }

  /**
   * Prints generated/pep_jni_methods.h: per method a PEPJavaMethod initializer (pep_jni.h), per
   * class its name, and for the object-store classes their number of methods, so C can check that
   * the table it resolves at session open holds all of them.
   */
  public static void main(String[] args) {
    StringBuilder h = new StringBuilder();
    h.append("/* The Java methods and classes C resolves; made by extension/Makefile from\n")
        .append(" * parquet-writer's JniMethods.java. Include after pep_jni.h. */\n")
        .append("#ifndef PEP_JNI_METHODS_H\n#define PEP_JNI_METHODS_H\n\n");
    for (Method m : METHODS) {
      h.append("#define PEP_JNI_")
          .append(m.macro())
          .append(m.isStatic() ? " PEP_JAVA_STATIC(" : " PEP_JAVA_METHOD(")
          .append(quote(m.className()))
          .append(", ")
          .append(quote(m.name()))
          .append(", ")
          .append(quote(m.descriptor()))
          .append(")\n");
    }
    h.append('\n');
    for (Klass k : CLASSES) {
      h.append("#define PEP_JNI_CLASS_")
          .append(k.macro())
          .append(' ')
          .append(quote(k.className()))
          .append('\n');
    }
    h.append("#define PEP_JNI_S3EXPORT_METHODS ").append(count(S3_EXPORT)).append('\n');
    h.append("#define PEP_JNI_S3SWEEP_METHODS ").append(count(S3_SWEEP)).append('\n');
    h.append("\n#endif\n");
    System.out.print(h);
  }

  private JniMethods() {}
}
