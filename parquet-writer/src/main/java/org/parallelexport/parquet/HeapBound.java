/*
 * HeapBound: a full collection after a row group that made SerialGC expand the heap without one.
 *
 * A row group's dictionary writers outlive the small young generation of the default jvm_options
 * (-Xmn16m), so every row group promotes its dictionaries to the old generation, where they die
 * when the row group ends. Up to JDK 21, SerialGC collects the old generation after any young
 * collection that had to expand it for promotions, so -Xms sets where a worker's heap stops
 * growing. JDK 23 dropped that rule (JDK-8331557, "Serial: Refactor SerialHeap::do_collection"):
 * a young collection now expands the old generation up to -Xmx less the young generation and the
 * old generation is collected only when a young collection can no longer promote, so a worker of
 * JDK 25 kept every dead dictionary of its export, up to 500 MB. No JVM option restores the rule.
 *
 * PartWriter calls betweenRowGroups() when it starts a row group, once the last one's writers are
 * unreachable. On JDK 23 and later, if the heap grew since the last call and SerialGC ran no full
 * collection meanwhile, it asks for one (System.gc()): what JDK 17 and 21 do on their own, at most
 * a row group later. It looks the collector up (java.lang.management: about 50 ms of CPU) only
 * once the heap first grows, so an export too small to grow it pays nothing; under another
 * collector in jvm_options it does nothing (those size the heap by other rules), and
 * -XX:+DisableExplicitGC turns it off.
 */
package org.parallelexport.parquet;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;

final class HeapBound {
  // The first JDK whose SerialGC no longer collects the old generation when it expands it.
  private static final boolean EXPANDS = Runtime.version().feature() >= 23;
  // SerialGC's old-generation collector, as java.lang.management names it.
  private static final String SERIAL_FULL = "MarkSweepCompact";

  private static long committed = Runtime.getRuntime().totalMemory();
  // null until the heap first grows; then SerialGC's full collector, or none under another GC.
  private static GarbageCollectorMXBean full;
  private static boolean otherCollector;
  // Its full collections at the last call that found the heap grown.
  private static long fullCollections;

  private HeapBound() {}

  static synchronized void betweenRowGroups() {
    long now = Runtime.getRuntime().totalMemory();
    if (now > committed && EXPANDS && !otherCollector) {
      if (full == null) {
        lookUp();
      }
      if (full != null) {
        if (full.getCollectionCount() == fullCollections) {
          System.gc();
          now = Runtime.getRuntime().totalMemory();
        }
        fullCollections = full.getCollectionCount();
      }
    }
    committed = now;
  }

  private static void lookUp() {
    for (GarbageCollectorMXBean collector : ManagementFactory.getGarbageCollectorMXBeans()) {
      if (collector.getName().equals(SERIAL_FULL)) {
        full = collector;
        return;
      }
    }
    otherCollector = true;
  }
}
