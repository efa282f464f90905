package org.parallelexport.parquet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.invoke.MethodType;
import java.lang.reflect.Executable;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * JniMethodsTest: every method C resolves exists, with the descriptor and the static-ness C gives
 * it, and C names no Java method that is not in JniMethods.
 *
 * <p>JNI resolves a method by name and descriptor only when C first asks for it, so a renamed
 * method or a changed parameter would otherwise fail the first export that reaches the call (for
 * the object store, only the test that does). Here each JniMethods entry is looked up the way
 * GetMethodID and GetStaticMethodID look it up (the class, then its superclasses and interfaces),
 * and the C sources are read to check that they spell methods only through the generated macros and
 * use every one of them.
 */
class JniMethodsTest {
  private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

  private static Class<?> load(String className) throws ClassNotFoundException {
    return Class.forName(className.replace('/', '.'), false, JniMethodsTest.class.getClassLoader());
  }

  /** What GetMethodID or GetStaticMethodID would find for m, or null. */
  private static Executable resolve(JniMethods.Method m) throws ClassNotFoundException {
    Deque<Class<?>> todo = new ArrayDeque<>(List.of(load(m.className())));
    Set<Class<?>> seen = new HashSet<>();
    while (!todo.isEmpty()) {
      Class<?> c = todo.removeFirst();
      if (!seen.add(c)) {
        continue;
      }
      for (Method candidate : c.getDeclaredMethods()) {
        String descriptor =
            MethodType.methodType(candidate.getReturnType(), candidate.getParameterTypes())
                .toMethodDescriptorString();
        if (candidate.getName().equals(m.name()) && descriptor.equals(m.descriptor())) {
          return candidate;
        }
      }
      if (c.getSuperclass() != null) {
        todo.addLast(c.getSuperclass());
      }
      todo.addAll(List.of(c.getInterfaces()));
    }
    return null;
  }

  @Test
  void everyMethodCResolvesExistsWithItsDescriptor() throws ClassNotFoundException {
    List<String> wrong = new ArrayList<>();
    for (JniMethods.Method m : JniMethods.METHODS) {
      Executable found = resolve(m);
      if (found == null) {
        wrong.add(m.className() + "." + m.name() + m.descriptor() + ": no such method");
      } else if (Modifier.isStatic(found.getModifiers()) != m.isStatic()) {
        wrong.add(
            m.className()
                + "."
                + m.name()
                + ": C calls it as "
                + (m.isStatic() ? "" : "not ")
                + "static");
      }
    }
    assertEquals(List.of(), wrong, "methods C resolves (JniMethods) that the writer lacks");
  }

  @Test
  void everyClassCLooksUpExists() throws ClassNotFoundException {
    for (JniMethods.Klass k : JniMethods.CLASSES) {
      assertEquals(k.className().replace('/', '.'), load(k.className()).getName());
    }
  }

  @Test
  void macroNamesAreUnique() {
    Set<String> names = new HashSet<>();
    for (JniMethods.Method m : JniMethods.METHODS) {
      assertTrue(names.add(m.macro()), "two entries named " + m.macro());
    }
  }

  private static List<Path> cSources() throws IOException {
    List<Path> out = new ArrayList<>();
    for (String dir : List.of("extension", "pljava-glue")) {
      try (Stream<Path> files = Files.walk(ROOT.resolve(dir))) {
        files
            .filter(p -> p.toString().endsWith(".c") || p.toString().endsWith(".h"))
            .filter(p -> !p.toString().contains("/generated/"))
            .forEach(out::add);
      }
    }
    assertTrue(out.size() > 10, "C sources not found under " + ROOT);
    return out;
  }

  @Test
  void cSpellsMethodsOnlyThroughTheGeneratedMacros() throws IOException {
    Pattern literal = Pattern.compile("PEP_JAVA_(?:METHOD|STATIC)\\s*\\(\\s*[A-Z\"]");
    Pattern use = Pattern.compile("\\bPEP_JNI_([A-Z0-9_]+)");
    List<String> literals = new ArrayList<>();
    Set<String> used = new HashSet<>();
    for (Path p : cSources()) {
      List<String> lines = Files.readAllLines(p);
      for (int i = 0; i < lines.size(); i++) {
        String line = lines.get(i);
        // pep_jni.h defines the macros and shows one in its header comment.
        if (literal.matcher(line).find()
            && !p.endsWith("pep_jni.h")
            && !line.trim().startsWith("*")) {
          literals.add(ROOT.relativize(p) + ":" + (i + 1) + ": " + line.trim());
        }
        Matcher u = use.matcher(line);
        while (u.find()) {
          used.add(u.group(1));
        }
      }
    }
    assertEquals(
        List.of(), literals, "C names a Java method outside JniMethods (use its PEP_JNI_ macro)");
    List<String> unused = new ArrayList<>();
    for (JniMethods.Method m : JniMethods.METHODS) {
      if (!used.contains(m.macro())) {
        unused.add(m.macro());
      }
    }
    for (JniMethods.Klass k : JniMethods.CLASSES) {
      if (!used.contains("CLASS_" + k.macro())) {
        unused.add("CLASS_" + k.macro());
      }
    }
    assertEquals(List.of(), unused, "JniMethods entries no C code uses");
  }
}
