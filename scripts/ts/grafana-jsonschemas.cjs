// JSON Schemas (draft-07) of Grafana's dashboard, panel and Prometheus query types, made
// from the TypeScript declarations the lock file pins, so the dashboards can be validated
// by a JSON Schema validator as well as type-checked by tsc.
//
//   node grafana-jsonschemas.cjs NODE_MODULES OUT_DIR
//
// Writes, into OUT_DIR:
//   dashboard.jsonschema.json    `Dashboard` of @grafana/schema (its top-level $ref)
//   <panel>.jsonschema.json      one per panel plugin of @grafana/schema: its `Options` and
//                                (where the plugin has one) `FieldConfig`, under
//                                "definitions"; a plugin whose types the generator cannot
//                                express (two definitions of one name) is named and left out
//   prometheus.jsonschema.json   the Prometheus query (`dataquery` of grafana-foundation-sdk;
//                                @grafana/schema has no Prometheus query type)
// Interfaces get "additionalProperties": false: a field the types lack is an error, as in
// tsc's excess-property check. String enums become their values, as the JSON holds them.
"use strict";

const fs = require("node:fs");
const path = require("node:path");

const [modules, out] = process.argv.slice(2);
if (!modules || !out) {
  console.error("usage: node grafana-jsonschemas.cjs NODE_MODULES OUT_DIR");
  process.exit(2);
}
const ts = require(path.join(modules, "typescript"));
const gen = require(path.join(modules, "ts-json-schema-generator"));

const SCHEMA = path.join(modules, "@grafana", "schema", "dist", "types", "raw");
const COMPOSABLE = path.join(SCHEMA, "composable");
const DASHBOARD = path.join(SCHEMA, "dashboard", "x", "types.gen.d.ts");
const SDK = path.join(modules, "@grafana", "grafana-foundation-sdk", "dist");
const PROMETHEUS = path.join(SDK, "prometheus", "types.gen.d.ts");

const panels = fs
  .readdirSync(COMPOSABLE)
  .map((name) => [name, path.join(COMPOSABLE, name, "panelcfg", "x", "types.gen.d.ts")])
  .filter(([, file]) => fs.existsSync(file))
  .sort(([a], [b]) => a.localeCompare(b));

const config = {
  ...gen.DEFAULT_CONFIG,
  expose: "export",
  topRef: true,
  jsDoc: "none",
  functions: "hide", // the SDK's marker method `_implementsDataqueryVariant()` is no field
  additionalProperties: false,
  skipTypeCheck: true,
};
const files = [DASHBOARD, PROMETHEUS, ...panels.map(([, file]) => file)];
const program = ts.createProgram(files, { noEmit: true, strict: true, skipLibCheck: true });
const formatter = gen.createFormatter(config);

function exported(file) {
  const source = program.getSourceFile(file);
  if (!source) throw new Error(`not in the program: ${file}`);
  const found = new Map();
  for (const node of source.statements) {
    const declares =
      ts.isInterfaceDeclaration(node) || ts.isTypeAliasDeclaration(node) || ts.isEnumDeclaration(node);
    const isExported = node.modifiers?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
    if (declares && isExported && !node.typeParameters) found.set(node.name.text, node);
  }
  return found;
}

function schema(nodes) {
  // A parser per module: type names repeat across plugins (each has its own `Options`).
  const generator = new gen.SchemaGenerator(program, gen.createParser(program, config), formatter, config);
  return generator.createSchemaFromNodes(nodes);
}

function named(file, name) {
  const node = exported(file).get(name);
  if (!node) throw new Error(`${file} exports no ${name}`);
  return node;
}

function write(name, value) {
  fs.writeFileSync(path.join(out, `${name}.jsonschema.json`), `${JSON.stringify(value, null, 2)}\n`);
}

fs.rmSync(out, { recursive: true, force: true });
fs.mkdirSync(out, { recursive: true });
write("dashboard", schema([named(DASHBOARD, "Dashboard")]));
write("prometheus", schema([named(PROMETHEUS, "dataquery")]));
const left = [];
for (const [name, file] of panels) {
  const types = exported(file);
  const roots = ["Options", "FieldConfig"].filter((type) => types.has(type));
  if (!roots.includes("Options")) throw new Error(`panel ${name} exports no Options`);
  try {
    write(name, schema(roots.map((type) => types.get(type))));
  } catch (error) {
    left.push(`${name} (${String(error.message ?? error).split("\n")[0]})`);
  }
}
const made = fs.readdirSync(out).length;
console.error(`grafana-jsonschemas: ${made} schemas in ${out}`);
if (left.length) console.error(`grafana-jsonschemas: left out ${left.join(", ")}`);
