// Validates config files against docs/schedlint.schema.json as an editor's YAML language server
// would: each file parsed as YAML 1.2 (the `yaml` package, which the YAML language server uses),
// its one document checked by Ajv (JSON Schema draft-07). tests/run-schema.sh runs it.
// Usage: node schema-check.js SCHEMA FILE...
// Prints "schema: ok" once the schema itself is valid and compiles, then per file
// "valid FILE" or "invalid FILE: WHY"; exit status 0, or 2 when the schema is not usable.
'use strict';
const fs = require('fs');
const Ajv = require('ajv');
const YAML = require('yaml');

const [schemaFile, ...files] = process.argv.slice(2);
const schema = JSON.parse(fs.readFileSync(schemaFile, 'utf8'));
// strict: a keyword Ajv does not know, or one that cannot apply to the types given, is an error
// in the schema, not something to ignore (but a `required` in an if or anyOf branch, which names
// properties defined beside it).
const ajv = new Ajv({ allErrors: true, strict: true, strictRequired: false, allowUnionTypes: true });
if (!ajv.validateSchema(schema)) {
  console.log('schema: not a draft-07 schema: ' + ajv.errorsText(ajv.errors));
  process.exit(2);
}
let validate;
try {
  validate = ajv.compile(schema);
} catch (e) {
  console.log('schema: does not compile: ' + e.message);
  process.exit(2);
}
console.log('schema: ok');
for (const f of files) {
  let data;
  try {
    const docs = YAML.parseAllDocuments(fs.readFileSync(f, 'utf8'));
    const errs = docs.flatMap((d) => d.errors);
    if (errs.length) throw new Error(errs[0].message.split('\n')[0]);
    const nonEmpty = docs.filter((d) => d.contents !== null);
    if (nonEmpty.length > 1) throw new Error('a config holds one document');
    data = nonEmpty.length ? nonEmpty[0].toJS() : null;
  } catch (e) {
    console.log(`invalid ${f}: YAML: ${e.message}`);
    continue;
  }
  if (validate(data)) console.log(`valid ${f}`);
  else console.log(`invalid ${f}: ${ajv.errorsText(validate.errors.slice(0, 3))}`);
}
