// The public surface of mcp-msgpack-transport, as its published declarations state it: for each entry point
// in package.json's "exports" (and the core, which the root is under the workerd, worker, browser and deno
// conditions), every exported name with its declaration, comments left out. Written to
// packages/transport-msgpack/api-report.md and checked in, so that a change to the surface shows in review;
// test/api-report.test.ts fails when the built declarations and the checked-in report differ.
//   node scripts/api-report.mjs           (after `npm run build`: writes the report)
//   node scripts/api-report.mjs --check   (exits 1 if the report is out of date)
// Read from the .d.ts files (tsc's output, one top-level statement per line at column 0), since TypeScript 7
// has no JavaScript compiler API; a declaration the reader cannot find fails the run rather than going missing.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';

const packageDir = fileURLToPath(new URL('../packages/transport-msgpack/', import.meta.url));
const REPORT = join(packageDir, 'api-report.md');
const distDir = join(packageDir, 'dist', 'esm/');

/** Each entry: its name for users and its declaration file under dist/esm. */
const ENTRIES = [
  ['mcp-msgpack-transport (Node, Bun)', 'index.d.ts'],
  ['mcp-msgpack-transport (Deno, Workers, browsers: the core)', 'core.d.ts'],
  ['mcp-msgpack-transport/stdio', 'stdio.d.ts'],
  ['mcp-msgpack-transport/node', 'node.d.ts'],
  ['mcp-msgpack-transport/bun', 'bun.d.ts'],
  ['mcp-msgpack-transport/wire', 'wire-api.d.ts'],
  ['mcp-msgpack-transport/redis', 'redis/index.d.ts'],
  ['mcp-msgpack-transport/agents', 'agents/index.d.ts'],
];

const modules = new Map();

/** A declaration file as top-level statements (comments and blank lines dropped). */
function statementsOf(file) {
  const text = readFileSync(file, 'utf8')
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/^\s*\/\/.*$/gm, '');
  const statements = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    const continues = /^[\s})\]]/.test(line) && statements.length > 0;
    if (continues) statements[statements.length - 1] += `\n${line.trimEnd()}`;
    else statements.push(line.trimEnd());
  }
  return statements;
}

const DECLARATION = /^(?:export )?(?:declare )?(?:abstract )?(class|function|const|let|interface|type|enum|namespace) (\w+)/;

/** What a module declares and exports: name -> { kind: 'value' | 'type', text } (following re-exports). */
function exportsOf(file) {
  if (modules.has(file)) return modules.get(file);
  if (!existsSync(file)) throw new Error(`api-report: ${file} is missing (run \`npm run build\` first)`);
  const exported = new Map();
  modules.set(file, exported);
  const declared = new Map();
  const statements = statementsOf(file);
  for (const statement of statements) {
    const match = DECLARATION.exec(statement);
    if (!match) continue;
    const [, keyword, name] = match;
    const kind = keyword === 'interface' || keyword === 'type' ? 'type' : 'value';
    const before = declared.get(name);
    // Overloads, and a class or const merged with an interface or namespace of the same name, stay together.
    declared.set(name, { kind: before?.kind === 'value' ? 'value' : kind, text: before ? `${before.text}\n${statement}` : statement, where: `${file.slice(distDir.length).replace(/\.d\.ts$/, '')}#${name}` });
    if (statement.startsWith('export ')) exported.set(name, declared.get(name));
  }
  // Names imported here, which a local `export { name }` may pass on.
  const imported = new Map();
  for (const statement of statements) {
    const from = /^import (?:type )?\{([^}]*)\} from ['"](\.[^'"]+)['"]/.exec(statement);
    if (!from) continue;
    for (const part of from[1]
      .split(',')
      .map((p) => p.trim())
      .filter(Boolean)) {
      const [, original, alias] = /^(?:type )?(\w+)(?: as (\w+))?$/.exec(part) ?? [];
      if (original) imported.set(alias ?? original, { file: normalize(join(dirname(file), from[2].replace(/\.js$/, '.d.ts'))), original });
    }
  }
  const local = (name) => {
    if (declared.has(name)) return declared.get(name);
    const via = imported.get(name);
    return via ? exportsOf(via.file).get(via.original) : undefined;
  };
  // A class's base, when the package declares it: the report shows it too, exported or not (its public
  // members are the subclass's).
  for (const entry of declared.values()) {
    const base = /^(?:export )?(?:declare )?(?:abstract )?class \w+(?:<[^>]*>)? extends (\w+)/m.exec(entry.text)?.[1];
    if (base) entry.base = () => local(base);
  }
  for (const statement of statements) {
    if (statement.startsWith('import ')) continue;
    const target = /from ['"](\.[^'"]+)['"]/.exec(statement)?.[1];
    const source = target ? exportsOf(normalize(join(dirname(file), target.replace(/\.js$/, '.d.ts')))) : undefined;
    if (/^export (type )?\* from /.test(statement)) {
      const typeOnly = statement.startsWith('export type');
      for (const [name, entry] of source) if (!exported.has(name)) exported.set(name, typeOnly ? { ...entry, kind: 'type' } : entry);
      continue;
    }
    const list = /^export (type )?\{([^}]*)\}/.exec(statement);
    if (!list) continue;
    for (const part of list[2]
      .split(',')
      .map((p) => p.trim())
      .filter(Boolean)) {
      const [, typeMark, original, alias] = /^(type )?(\w+)(?: as (\w+))?$/.exec(part) ?? [];
      if (!original) throw new Error(`api-report: cannot read "${part}" in ${file}`);
      const entry = source ? source.get(original) : local(original);
      if (!entry) throw new Error(`api-report: ${original} (exported by ${file}) has no declaration the reader found`);
      exported.set(alias ?? original, list[1] || typeMark ? { ...entry, kind: 'type' } : entry);
    }
  }
  return exported;
}

/** The report, as markdown: per entry, its names (values, then types) and where each is declared; then each declaration once. */
export function apiReport() {
  modules.clear();
  const lines = [
    '# API report: mcp-msgpack-transport',
    '',
    'Generated by `node scripts/api-report.mjs` from the published declarations (dist/esm/*.d.ts); checked by',
    '`test/api-report.test.ts`. A change here is a change to what users can import: make it on purpose.',
  ];
  const declarations = new Map();
  for (const [title, file] of ENTRIES) {
    const names = [...exportsOf(join(distDir, file))].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    const values = names.filter(([, e]) => e.kind === 'value');
    const types = names.filter(([, e]) => e.kind === 'type');
    lines.push('', `## ${title}`, '', `${values.length} values, ${types.length} types.`, '');
    for (const [name, entry] of [...values, ...types]) {
      lines.push(`- \`${name}\` (${entry.kind}): \`${entry.where}\``);
      for (let declared = entry; declared; declared = declared.base?.()) declarations.set(declared.where, declared.text);
    }
  }
  lines.push('', '## Declarations', '');
  for (const where of [...declarations.keys()].sort()) {
    // Private members are in the declarations (for assignability) but are no one's to use: left out.
    const text = declarations
      .get(where)
      .replace(/^export (declare )?/gm, '')
      .replace(/^\s+private .*\n/gm, '');
    lines.push(`### ${where}`, '', '```ts', text, '```', '');
  }
  return `${lines.join('\n').trimEnd()}\n`;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const report = apiReport();
  if (process.argv.includes('--check')) {
    const current = existsSync(REPORT) ? readFileSync(REPORT, 'utf8') : '';
    if (current !== report) {
      console.error('api-report: the public surface changed; if on purpose, run `node scripts/api-report.mjs` and commit api-report.md');
      process.exit(1);
    }
    console.log('api-report: the public surface matches api-report.md');
  } else {
    writeFileSync(REPORT, report);
    console.log(`api-report: wrote ${REPORT}`);
  }
}
