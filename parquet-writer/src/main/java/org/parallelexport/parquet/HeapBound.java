package org.parallelexport.parquet;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;

/**
 * HeapBound: full collections between row groups, so that what the row groups left behind does not
 * make a long export's worker take more memory than a short one's.
 *
 * <p>A row group's dictionary writers outlive the small young generation of the default jvm_options
 * (-Xmn16m), so every row group promotes its dictionaries to the old generation, where they die
 * when the row group ends. SerialGC collects the old generation only when a promotion no longer
 * fits it, so it fills with them first: its pages are touched once and stay the worker's, and an
 * export that runs long enough touches all of -Xms (a 100M-row export peaked 14 MB above a 10M-row
 * one of the same table). JDK 23 made that worse (JDK-8331557, "Serial: Refactor
 * SerialHeap::do_collection"): a young collection now expands the old generation up to -Xmx less
 * the young generation instead of collecting it, so a worker of JDK 25 kept every dead dictionary
 * of its export, up to 500 MB. No JVM option bounds either.
 *
 * <p>PartWriter calls betweenRowGroups() when it starts a row group, once the last one's writers
 * are unreachable. It asks for a full collection (System.gc()) when the old generation holds more
 * than SLACK bytes above what the last full collection left there (before the first, the least it
 * held at a call), and, on JDK 23 and later, when the heap grew since the last call without a full
 * collection (what JDK 17 and 21 do on their own). So the old generation's pages reach what the
 * export keeps live plus SLACK, however many row groups it writes; a full collection of a worker's
 * heap takes tens of milliseconds, and a table whose row groups promote SLACK each pays one per row
 * group. It looks SerialGC up (java.lang.management: about 50 ms of CPU) only once the heap in use
 * reaches WATCH_FROM or grows, so an export too small for either pays nothing; under another
 * collector in jvm_options it does nothing (those size the heap by other rules), and
 * -XX:+DisableExplicitGC turns it off.
 */
final class HeapBound {
  static final long SLACK = 8L * 1024 * 1024;
  static final long WATCH_FROM = 32L * 1024 * 1024;
  // The first JDK whose SerialGC no longer collects the old generation when it expands it.
  private static final boolean EXPANDS = Runtime.version().feature() >= 23;
  // SerialGC's old-generation collector and pool, as java.lang.management names them.
  private static final String SERIAL_FULL = "MarkSweepCompact";
  private static final String SERIAL_OLD = "Tenured Gen";

  private static long committed = Runtime.getRuntime().totalMemory();
  // null until first needed; then SerialGC's full collector and old generation, or none under
  // another collector.
  private static GarbageCollectorMXBean full;
  private static MemoryPoolMXBean old;
  private static boolean otherCollector;
  // Its full collections at the last call.
  private static long fullCollections;
  // The least the old generation held at a call before its first full collection.
  private static long leastOld = Long.MAX_VALUE;

  private HeapBound() {}

  static synchronized void betweenRowGroups() {
    Runtime runtime = Runtime.getRuntime();
    long now = runtime.totalMemory();
    boolean grew = now > committed;
    committed = now;
    if (otherCollector
        || (full == null && !(grew && EXPANDS) && now - runtime.freeMemory() < WATCH_FROM)) {
      return;
    }
    if (full == null && !lookUp()) {
      return;
    }
    long collections = full.getCollectionCount();
    long held = old.getUsage().getUsed();
    long floor;
    if (collections > 0) {
      floor = old.getCollectionUsage().getUsed();
    } else {
      leastOld = Math.min(leastOld, held);
      floor = leastOld;
    }
    if (overSlack(held, floor) || (grew && EXPANDS && collections == fullCollections)) {
      System.gc();
      committed = runtime.totalMemory();
    }
    fullCollections = full.getCollectionCount();
  }

  /** Whether an old generation holding {@code held} bytes, {@code floor} of them live, is due. */
  static boolean overSlack(long held, long floor) {
    return held - floor > SLACK;
  }

  private static boolean lookUp() {
    for (GarbageCollectorMXBean collector : ManagementFactory.getGarbageCollectorMXBeans()) {
      if (collector.getName().equals(SERIAL_FULL)) {
        full = collector;
      }
    }
    for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
      if (pool.getName().equals(SERIAL_OLD)) {
        old = pool;
      }
    }
    otherCollector = full == null || old == null;
    if (otherCollector) {
      full = null;
    }
    return !otherCollector;
  }
}
