// @hyperjump/json-schema as a correctness oracle: one verdict (true/false) per JSON Lines record.
//
//   node hyperjump_verdicts.mjs --modules DIR SCHEMA JSONL [--formats]
//
// DIR: a node_modules folder holding @hyperjump/json-schema (load/bench/schema/npm_peers.sh).
// The schema's dialect is its $schema (drafts 4, 6, 7, 2019-09, 2020-12; none: 2020-12). The
// schema is registered under a made-up URI of its own (it has no $id); nothing is fetched.
// format is an annotation unless --formats (hyperjump's format validators, asserted).
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

function usage(message) {
  process.stderr.write(`hyperjump_verdicts: ${message}\nusage: node hyperjump_verdicts.mjs --modules DIR SCHEMA JSONL [--formats]\n`);
  process.exit(2);
}

const args = process.argv.slice(2);
let modules = null;
let formats = false;
const positional = [];
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--modules') modules = args[++i];
  else if (args[i] === '--formats') formats = true;
  else if (args[i].startsWith('--')) usage(`unknown option ${args[i]}`);
  else positional.push(args[i]);
}
if (positional.length !== 2 || !modules) usage('wrong arguments');
const [schemaPath, inputPath] = positional;

const base = path.join(path.resolve(modules), '@hyperjump', 'json-schema');
const load = (p) => import(pathToFileURL(path.join(base, p)).href);
const hj = await load('draft-2020-12/index.js');
for (const dialect of ['draft-04', 'draft-06', 'draft-07', 'draft-2019-09']) await load(`${dialect}/index.js`);
if (formats) await load('formats/index.js');
hj.setShouldValidateFormat(formats);

const schema = JSON.parse(fs.readFileSync(schemaPath, 'utf8'));
if (!schema.$schema) schema.$schema = 'https://json-schema.org/draft/2020-12/schema';
const uri = `https://rosetta.invalid/bench/${path.basename(schemaPath)}`;
hj.registerSchema(schema, uri);
const validator = await hj.validate(uri);

const out = [];
for (const line of fs.readFileSync(inputPath, 'utf8').split('\n')) {
  if (line.length === 0 || line === '\r') continue;
  out.push(validator(JSON.parse(line)).valid ? 'true' : 'false');
}
process.stdout.write(out.join('\n') + (out.length ? '\n' : ''));
