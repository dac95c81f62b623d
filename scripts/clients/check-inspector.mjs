// check-inspector.mjs checks the JSON that `inspector --cli --format json`
// printed (read from stdin) and exits non-zero, saying why, if it is not
// what Warden should have answered.
//
// Usage: node check-inspector.mjs <list|call|call-error|echo> <modern|legacy> <tool> [text-length|text]
//
//   list        result.tools includes <tool>, each tool with a description
//               and an object input schema, and (with --strict) no schema
//               portability finding, not even a warning
//   call        a successful <tool> call whose structured text_length is
//               [text-length]
//   call-error  an error result whose text starts with invalid_params:
//   echo        a successful call whose structured text is [text] (a
//               plugin's scaffold tool, NAME_echo)
//
// The era is checked on calls: 2026-07-28 results carry
// _meta["io.modelcontextprotocol/serverInfo"], legacy results do not.
const [kind, era, tool, textLength] = process.argv.slice(2);
const serverInfoKey = 'io.modelcontextprotocol/serverInfo';

let input = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (d) => { input += d; });
process.stdin.on('end', () => {
  const problems = [];
  let out;
  try {
    out = JSON.parse(input);
  } catch (e) {
    fail([`output is not JSON: ${input.slice(0, 300)}`]);
    return;
  }
  const r = out.result;
  if (!r) {
    fail([`no result: ${input.slice(0, 300)}`]);
    return;
  }
  const need = (ok, msg) => { if (!ok) problems.push(msg); };
  switch (kind) {
    case 'list': {
      const tools = Array.isArray(r.tools) ? r.tools : [];
      need(tools.some((t) => t.name === tool), `tools/list lacks ${tool}: ${tools.map((t) => t.name).join(', ')}`);
      need(tools.every((t) => t.description && t.inputSchema && t.inputSchema.type === 'object'), 'a tool lacks a description or an object input schema');
      for (const { toolName, findings } of out.schemaFindings ?? []) {
        for (const f of findings) {
          problems.push(`schema portability ${f.severity}: ${toolName} ${f.schema}${f.path ? '.' + f.path : ''} (${f.rule}): ${f.issue}`);
        }
      }
      break;
    }
    case 'echo': {
      const hasInfo = Boolean(r._meta && r._meta[serverInfoKey]);
      need(era === 'modern' ? hasInfo : !hasInfo, `${era} call result ${hasInfo ? 'has' : 'lacks'} _meta serverInfo`);
      need(r.isError !== true, 'the call returned an error result');
      need(r.structuredContent && r.structuredContent.text === textLength, `structured text ${JSON.stringify(r.structuredContent)}, want ${JSON.stringify(textLength)}`);
      break;
    }
    case 'call':
    case 'call-error': {
      const hasInfo = Boolean(r._meta && r._meta[serverInfoKey]);
      need(era === 'modern' ? hasInfo : !hasInfo, `${era} call result ${hasInfo ? 'has' : 'lacks'} _meta serverInfo`);
      const text = r.content && r.content[0] && r.content[0].text;
      if (kind === 'call') {
        need(r.isError !== true, 'the call returned an error result');
        need(r.structuredContent && r.structuredContent.status === 'completed', 'structured status is not completed');
        need(r.structuredContent && String(r.structuredContent.text_length) === textLength, `text_length ${r.structuredContent && r.structuredContent.text_length}, want ${textLength}`);
      } else {
        need(r.isError === true, 'the call did not return an error result');
        need(typeof text === 'string' && text.startsWith('invalid_params:'), `error text ${JSON.stringify(text)} does not start with invalid_params:`);
      }
      break;
    }
    default:
      problems.push(`unknown check ${kind}`);
  }
  if (problems.length) fail(problems);
});

function fail(problems) {
  for (const p of problems) console.log(`  ${p}`);
  process.exit(1);
}
