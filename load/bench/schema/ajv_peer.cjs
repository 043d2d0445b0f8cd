// ajv 8 (+ ajv-formats) on JSON Lines, for the JSON Schema benchmark (load/bench/schema_bench.py)
// and the differential check (load/bench/schema/differential.py).
//
//   node ajv_peer.cjs --modules DIR MODE SCHEMA JSONL [--formats] [--all-errors] [--runs N] [--warmup-s S]
//                     [--min-run-s S]
//
// DIR: a node_modules folder holding ajv and ajv-formats (load/bench/schema/npm_peers.sh).
// MODE:
//   once      compiles the schema, reads the file, JSON.parse + validate of every line; prints
//             {"records","invalid","compile_ms"} as JSON; exit 1 if a record is invalid, as
//             `rosetta validate --seq --keep-going` (the whole-process row times this)
//   warm      compiles the schema (median of 5 compilations, each in a fresh Ajv), reads and splits
//             the file once, then validates every line for --warmup-s seconds (default 1), then
//             --runs (default 10) timed runs of as many passes as take --min-run-s (default 0.2)
//             (a pass: JSON.parse + validate of every line, not the file read or the split);
//             prints the median time of one pass and the process's memory as JSON, with
//             schema_heap_bytes: the JS heap a compiled schema holds (10 more compilations,
//             each run once on the first record and kept: heapUsed after full collections,
//             less the same before them, over 10)
//   verdicts  one line per record: true or false
// --formats: ajv-formats and validateFormats (format asserted); without it, format is an
// annotation, as for rosetta without --format-assertion. --all-errors: ajv's allErrors.
// The schema's draft is 2020-12 (ajv/dist/2020); strict mode off (the schemas use annotations
// ajv's strict mode has opinions about, e.g. unknown formats when formats are off).
'use strict';
const fs = require('fs');
const path = require('path');
const { createRequire } = require('module');

function usage(message) {
  process.stderr.write(`ajv_peer: ${message}\nusage: node ajv_peer.cjs --modules DIR once|warm|verdicts SCHEMA JSONL [--formats] [--all-errors] [--runs N] [--warmup-s S] [--min-run-s S]\n`);
  process.exit(2);
}

const args = process.argv.slice(2);
const opts = { formats: false, allErrors: false, runs: 10, warmupS: 1, minRunS: 0.2, modules: null };
const positional = [];
for (let i = 0; i < args.length; i++) {
  const a = args[i];
  if (a === '--formats') opts.formats = true;
  else if (a === '--all-errors') opts.allErrors = true;
  else if (a === '--runs') opts.runs = Number(args[++i]);
  else if (a === '--warmup-s') opts.warmupS = Number(args[++i]);
  else if (a === '--min-run-s') opts.minRunS = Number(args[++i]);
  else if (a === '--modules') opts.modules = args[++i];
  else if (a.startsWith('--')) usage(`unknown option ${a}`);
  else positional.push(a);
}
if (positional.length !== 3 || !opts.modules) usage('wrong arguments');
const [mode, schemaPath, inputPath] = positional;
if (!['once', 'warm', 'verdicts'].includes(mode)) usage(`unknown mode ${mode}`);

const req = createRequire(path.join(path.resolve(opts.modules), 'index.js'));
const Ajv2020 = req('ajv/dist/2020');
const addFormats = opts.formats ? req('ajv-formats') : null;
const ajvVersion = req('ajv/package.json').version;

function compile(schema) {
  const ajv = new Ajv2020({ strict: false, logger: false, allErrors: opts.allErrors, validateFormats: opts.formats });
  if (addFormats) addFormats(ajv);
  return ajv.compile(schema);
}

const schemaText = fs.readFileSync(schemaPath, 'utf8');
let t0 = process.hrtime.bigint();
const validate = compile(JSON.parse(schemaText));
const firstCompileMs = Number(process.hrtime.bigint() - t0) / 1e6;

function lines(text) {
  const out = text.split('\n');
  return out.filter((l) => l.length > 0 && l !== '\r');
}

if (mode === 'once') {
  const text = fs.readFileSync(inputPath, 'utf8');
  let records = 0;
  let invalid = 0;
  let start = 0;
  while (start < text.length) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    if (end > start) {
      records++;
      if (!validate(JSON.parse(text.slice(start, end)))) invalid++;
    }
    start = end + 1;
  }
  process.stdout.write(JSON.stringify({ records, invalid, compile_ms: firstCompileMs }) + '\n');
  process.exitCode = invalid ? 1 : 0;
} else if (mode === 'verdicts') {
  const out = [];
  for (const line of lines(fs.readFileSync(inputPath, 'utf8'))) out.push(validate(JSON.parse(line)) ? 'true' : 'false');
  process.stdout.write(out.join('\n') + (out.length ? '\n' : ''));
} else {
  const compiles = [firstCompileMs];
  for (let i = 0; i < 4; i++) {
    t0 = process.hrtime.bigint();
    compile(JSON.parse(schemaText));
    compiles.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  // (--expose_gc set from here, for the global gc() of a fresh context.)
  require('v8').setFlagsFromString('--expose_gc');
  const gc = require('vm').runInNewContext('gc');
  const bytes = fs.statSync(inputPath).size;
  const all = lines(fs.readFileSync(inputPath, 'utf8'));
  const first = JSON.parse(all[0]);
  gc();
  gc();
  const heapBefore = process.memoryUsage().heapUsed;
  const kept = [];
  for (let i = 0; i < 10; i++) {
    kept.push(compile(JSON.parse(schemaText)));
    kept[i](first);
  }
  gc();
  gc();
  const schemaHeapBytes = Math.round((process.memoryUsage().heapUsed - heapBefore) / kept.length);
  if (kept.some((v) => typeof v !== 'function')) throw new Error('ajv.compile returned no function');
  let invalid = 0;
  const pass = () => {
    let bad = 0;
    for (let i = 0; i < all.length; i++) if (!validate(JSON.parse(all[i]))) bad++;
    return bad;
  };
  const warmStart = process.hrtime.bigint();
  const warmEnd = warmStart + BigInt(Math.round(opts.warmupS * 1e9));
  let warmPasses = 0;
  do {
    invalid = pass();
    warmPasses++;
  } while (process.hrtime.bigint() < warmEnd);
  const passS = Number(process.hrtime.bigint() - warmStart) / 1e9 / warmPasses;
  const passesPerRun = Math.max(1, Math.ceil(opts.minRunS / passS));
  const runs = [];
  for (let r = 0; r < opts.runs; r++) {
    t0 = process.hrtime.bigint();
    for (let k = 0; k < passesPerRun; k++) pass();
    runs.push(Number(process.hrtime.bigint() - t0) / 1e9 / passesPerRun);
  }
  const median = (xs) => {
    const s = [...xs].sort((a, b) => a - b);
    return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
  };
  const m = median(runs);
  const mem = process.memoryUsage();
  process.stdout.write(JSON.stringify({
    ajv: ajvVersion, node: process.version, records: all.length, invalid, bytes,
    compile_ms: median(compiles), first_compile_ms: firstCompileMs, warmup_passes: warmPasses,
    passes_per_run: passesPerRun,
    runs_s: runs, median_s: m, mbps: bytes / m / 1e6, records_per_s: all.length / m,
    rss_bytes: mem.rss, heap_used_bytes: mem.heapUsed, schema_heap_bytes: schemaHeapBytes,
  }) + '\n');
}
