// Validates rendered Kubernetes manifests (YAML, several documents) against the API schemas
// of a current Kubernetes release, as `kubectl apply --validate=strict` would on a cluster:
//  - each object against its JSON Schema from Kubernetes' OpenAPI (types, required fields,
//    enums, formats), by the validators of the kubernetes-models packages (generated from
//    Kubernetes' own OpenAPI, and from cert-manager's CRDs for its objects);
//  - unknown fields refused, at every depth: every key must be a field of its type in the
//    type declarations those packages are generated with (read by the TypeScript checker).
// Everything comes from the npm packages pinned in package-lock.json: nothing is fetched.
//
//   node validate.mjs FILE.yaml...      exit 0: all valid; 1: a finding (one line each)
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import ts from "typescript";
import YAML from "yaml";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const MODULES = path.join(HERE, "node_modules");

// apiVersion -> the folder of its models.
function modelDir(apiVersion) {
  const [group, version] = apiVersion.includes("/") ? apiVersion.split("/") : ["", apiVersion];
  if (group === "cert-manager.io") return path.join(MODULES, "@kubernetes-models/cert-manager", group, version);
  return path.join(MODULES, "kubernetes-models", group || "", version);
}

const findings = [];
const docs = [];
for (const file of process.argv.slice(2)) {
  for (const doc of YAML.parseAllDocuments(fs.readFileSync(file, "utf8"))) {
    const value = doc.toJSON();
    if (value) docs.push({ file, value });
  }
}

const roots = [];
for (const d of docs) {
  const dts = path.join(modelDir(d.value.apiVersion), d.value.kind + ".d.ts");
  if (!fs.existsSync(dts)) {
    findings.push(`${d.file}: ${d.value.apiVersion} ${d.value.kind}: no schema for this kind`);
    continue;
  }
  d.dts = dts;
  roots.push(dts);
}
const program = ts.createProgram(roots, { noEmit: true, skipLibCheck: true, target: ts.ScriptTarget.ES2022,
                                          module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext });
const checker = program.getTypeChecker();

function interfaceOf(dts, kind) {
  const source = program.getSourceFile(dts);
  for (const statement of source.statements) {
    if (ts.isInterfaceDeclaration(statement) && statement.name.text === "I" + kind)
      return checker.getTypeAtLocation(statement);
  }
  return null;
}

// Every key of `value` must be a property of `type`, at every depth.
function strict(value, type, where, out) {
  if (value === null || value === undefined || typeof value !== "object") return;
  type = checker.getNonNullableType(type);
  if (type.flags & (ts.TypeFlags.Any | ts.TypeFlags.Unknown)) return;
  if (type.isUnion()) {
    const objects = type.types.filter((t) => t.flags & ts.TypeFlags.Object);
    if (objects.length === 1) strict(value, objects[0], where, out);
    return;
  }
  if (checker.isArrayType(type)) {
    const element = checker.getTypeArguments(type)[0];
    if (Array.isArray(value)) value.forEach((v, i) => strict(v, element, `${where}[${i}]`, out));
    return;
  }
  if (Array.isArray(value)) return;  // a type mismatch: the schema validators report it
  const index = checker.getIndexInfoOfType(type, ts.IndexKind.String);
  if (index) {
    for (const [k, v] of Object.entries(value)) strict(v, index.type, `${where}.${k}`, out);
    return;
  }
  const props = new Map(checker.getPropertiesOfType(type).map((p) => [p.name, p]));
  for (const [k, v] of Object.entries(value)) {
    const prop = props.get(k);
    if (!prop) {
      out.push(`${where}.${k}: unknown field`);
      continue;
    }
    const decl = prop.valueDeclaration ?? prop.declarations?.[0];
    strict(v, checker.getTypeOfSymbolAtLocation(prop, decl), `${where}.${k}`, out);
  }
}

let checked = 0;
for (const d of docs) {
  if (!d.dts) continue;
  const name = `${d.file}: ${d.value.kind} ${d.value.metadata?.name ?? "?"}`;
  const type = interfaceOf(d.dts, d.value.kind);
  if (!type) {
    findings.push(`${name}: no type declaration I${d.value.kind}`);
    continue;
  }
  const unknown = [];
  strict(d.value, type, d.value.kind, unknown);
  for (const u of unknown) findings.push(`${name}: ${u}`);
  const module = await import(pathToFileURL(d.dts.replace(/\.d\.ts$/, ".js")).href);
  try {
    new module[d.value.kind](d.value).validate();
  } catch (e) {
    findings.push(`${name}: ${e.message}`);
  }
  checked++;
}
for (const f of findings) console.log(f);
const versions = ["kubernetes-models", "@kubernetes-models/cert-manager"].map((p) =>
  `${p} ${JSON.parse(fs.readFileSync(path.join(MODULES, p, "package.json"))).version}`);
console.log(`validate: ${checked} objects, ${findings.length} findings (${versions.join(", ")})`);
process.exit(findings.length ? 1 : 0);
