// check-schemas.mjs feeds every schema Warden publishes (each tool's
// inputSchema and outputSchema, from `warden tools --json` on stdin: every
// tool of the build, whatever the configuration turns off) to the JSON
// Schema validators of the official TypeScript SDK (@modelcontextprotocol/
// client), and exits non-zero, naming each tool, schema and problem, when
// one would not be accepted everywhere. Run it from the directory whose
// node_modules holds the client.
//
// Usage: warden tools --json | node check-schemas.mjs [label]
//
// Each schema must:
//   - compile in both of the SDK's validators as a client builds them:
//     AjvJsonSchemaValidator (Node's default) and CfWorkerJsonSchemaValidator
//     (edge runtimes' default);
//   - compile in the SDK's own Ajv 2020-12 engine in strict mode: no union
//     type ("type": [..]), no unknown keyword or format, no keyword that
//     does not apply to the declared type, every required property
//     declared. Warden's extension keywords (x-mcp-header, x-warden-kind,
//     x-warden-privacy) are declared to it as annotations;
//   - keep to the subset that clients which map tool schemas onto a
//     narrower dialect (a model provider's function declarations, the MCP
//     Inspector's portability lint) accept: every schema states one type,
//     or is an anyOf of schemas that each state one; only widely read
//     keywords (and x- extensions); no boolean schema other than
//     additionalProperties: false; no $ref; an input array says what its
//     items are. The Go harness (tool/tooltest, checkPortable) holds every
//     tool to the same rules in go test.
// and the SDK's validator must accept, for each input schema, the
// arguments {} with the required parameters left out refused.
import { AjvJsonSchemaValidator, addFormats } from '@modelcontextprotocol/client/validators/ajv';
import { CfWorkerJsonSchemaValidator } from '@modelcontextprotocol/client/validators/cf-worker';

const label = process.argv[2] || 'check-schemas';
const TYPES = new Set(['object', 'array', 'string', 'number', 'integer', 'boolean', 'null']);
const EXTENSIONS = ['x-mcp-header', 'x-warden-kind', 'x-warden-privacy'];
// The keywords every client reads (tool/tooltest/portable.go's list).
const KEYWORDS = new Set([
  'type', 'anyOf', 'title', 'description', 'default', 'enum', 'const', 'examples', 'format',
  'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf',
  'minLength', 'maxLength', 'pattern',
  'items', 'minItems', 'maxItems', 'uniqueItems',
  'properties', 'required', 'additionalProperties',
  '$schema',
]);
// Keywords whose value is a schema, a list of schemas or a map of them.
const ONE = ['items', 'additionalProperties', 'not', 'contains', 'propertyNames', 'if', 'then', 'else', 'unevaluatedItems', 'unevaluatedProperties'];
const LIST = ['anyOf', 'oneOf', 'allOf', 'prefixItems'];
const MAP = ['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas'];

let input = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (d) => { input += d; });
process.stdin.on('end', main);

function main() {
  let tools;
  try {
    tools = JSON.parse(input).tools;
  } catch (e) {
    console.log(`${label}: FAIL the input is not warden tools --json: ${e.message}`);
    process.exit(2);
  }
  if (!Array.isArray(tools) || tools.length === 0) {
    console.log(`${label}: FAIL no tools in the input`);
    process.exit(2);
  }
  const ajv = new AjvJsonSchemaValidator();
  const cf = new CfWorkerJsonSchemaValidator();
  // The SDK bundles Ajv and does not export its 2020-12 class; its
  // default engine is one, so a strict engine is built from the same class.
  const Ajv2020 = ajv.ajv.constructor;
  const strict = new Ajv2020({ strict: true, allErrors: true, validateSchema: true, validateFormats: true });
  addFormats(strict);
  for (const keyword of EXTENSIONS) {
    strict.addKeyword({ keyword, schemaType: 'string' });
  }

  const problems = [];
  let schemas = 0;
  for (const tool of tools) {
    for (const which of ['inputSchema', 'outputSchema']) {
      const schema = tool[which];
      if (schema === undefined) {
        if (which === 'inputSchema') problems.push(`${tool.name} ${which}: missing`);
        continue;
      }
      schemas++;
      const where = `${tool.name} ${which}`;
      let validate;
      try {
        validate = ajv.getValidator(schema);
      } catch (e) {
        problems.push(`${where}: the SDK's Ajv validator refuses it: ${e.message}`);
      }
      try {
        cf.getValidator(schema);
      } catch (e) {
        problems.push(`${where}: the SDK's CfWorker validator refuses it: ${e.message}`);
      }
      try {
        strict.compile(schema);
      } catch (e) {
        problems.push(`${where}: strict Ajv 2020-12 refuses it: ${e.message}`);
      }
      portable(schema, '', which === 'inputSchema', (path, msg) => problems.push(`${where}${path ? ' at ' + path : ''}: ${msg}`));
      if (validate && which === 'inputSchema') {
        const required = Array.isArray(schema.required) ? schema.required : [];
        const empty = validate({});
        if (empty.valid !== (required.length === 0)) {
          problems.push(`${where}: {} is ${empty.valid ? 'accepted' : 'refused'} though ${required.length ? 'parameters are required' : 'none is required'} (${empty.errorMessage ?? ''})`);
        }
      }
    }
  }
  for (const p of problems) console.log(`${label}: FAIL ${p}`);
  if (problems.length > 0) {
    console.log(`${label}: ${problems.length} problem(s) in ${schemas} schemas of ${tools.length} tools`);
    process.exit(1);
  }
  console.log(`${label}: ok   ${schemas} schemas of ${tools.length} tools compile in the SDK's validators, strict, and keep to the portable subset`);
}

// portable walks a schema and reports what falls outside the subset
// every client accepts.
function portable(node, path, input, report, depth = 0) {
  if (depth > 64) {
    report(path, 'nested more than 64 levels');
    return;
  }
  if (typeof node !== 'object' || node === null || Array.isArray(node)) {
    report(path, `a bare ${JSON.stringify(node)} where a schema object belongs`);
    return;
  }
  for (const k of Object.keys(node)) {
    if (!k.startsWith('x-') && !KEYWORDS.has(k)) report(path, `keyword ${JSON.stringify(k)} is not one every client reads`);
  }
  const t = node.type;
  if (Array.isArray(t)) {
    report(path, `"type" is a list (${JSON.stringify(t)}); single-type dialects refuse it: use anyOf of single types`);
  } else if (t !== undefined && !TYPES.has(t)) {
    report(path, `"type" ${JSON.stringify(t)} is not a JSON Schema type`);
  } else if (t === undefined) {
    if (!Array.isArray(node.anyOf) || node.anyOf.length === 0) {
      report(path, 'no "type": the schema accepts any value, which single-type dialects cannot say; state the type, or anyOf of types');
    } else if (!node.anyOf.every((b) => b && typeof b === 'object' && typeof b.type === 'string')) {
      report(path, 'an anyOf branch without a single "type"');
    }
  }
  if (input && t === 'array' && node.items === undefined) report(path, 'an input array without "items"');
  for (const k of ONE) {
    if (!(k in node)) continue;
    if (k === 'additionalProperties' && node[k] === false) continue;
    portable(node[k], join(path, k), input, report, depth + 1);
  }
  for (const k of LIST) {
    if (Array.isArray(node[k])) node[k].forEach((s, i) => portable(s, `${join(path, k)}[${i}]`, input, report, depth + 1));
  }
  for (const k of MAP) {
    if (node[k] && typeof node[k] === 'object') {
      for (const [name, s] of Object.entries(node[k])) portable(s, join(join(path, k), name), input, report, depth + 1);
    }
  }
}

function join(path, k) {
  return path ? `${path}.${k}` : k;
}
