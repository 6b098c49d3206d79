/**
 * `npx tsx scripts/answer-drafts.ts [Class ...] [--write]`: drafts the answer
 * schemas (`schemas/<Class>/<method>.answer.json`) of methods that have none,
 * from what the TypeScript compiler infers each handler returns. Named
 * interfaces and type aliases of the answers go once into the class's
 * `types.answer.json` (`$defs`), which the drafts `$ref`. A draft is where a
 * schema starts, not where it ends: a handler that answers through
 * `ctx.response` (a 201, a 204), or whose type is wider than what it returns,
 * needs the file edited by hand (`x-answer-statuses`, `description`), and
 * test/runtime/openapi-answers*.test.ts checks real answers against it.
 * Without --write it prints what it would write.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import ts from 'typescript';

type Json = Record<string, unknown>;

const ROOT = path.resolve(__dirname, '..');
const KINDS = new Set(['Read', 'Write', 'Init', 'Static', 'QueuedWrite', 'Internal']);

function program(): ts.Program {
  const config = ts.readConfigFile(path.join(ROOT, 'tsconfig.json'), (file) => ts.sys.readFile(file));
  const parsed = ts.parseJsonConfigFileContent(config.config, ts.sys, ROOT);
  const files = parsed.fileNames.filter((f) => f.includes(`${path.sep}classes${path.sep}`) && f.endsWith('.class.ts'));
  return ts.createProgram(files, parsed.options);
}

class Converter {
  /** name → schema of the named types met, for types.answer.json */
  readonly defs: Record<string, Json> = {};
  private readonly naming = new Map<ts.Type, string>();
  private readonly stack = new Set<ts.Type>();

  constructor(private readonly checker: ts.TypeChecker) {}

  private nameOf(type: ts.Type): string | undefined {
    const sym = type.aliasSymbol ?? type.getSymbol();
    if (!sym) return undefined;
    const decl = sym.declarations?.[0];
    if (!decl) return undefined;
    const file = decl.getSourceFile().fileName;
    if (file.includes('node_modules') || !file.startsWith(ROOT)) return undefined;
    if (!(ts.isInterfaceDeclaration(decl) || ts.isTypeAliasDeclaration(decl))) return undefined;
    // generic aliases (DeepReadonly<X>, TierCtx<..>) are not names of a shape
    if (type.aliasTypeArguments?.length) return undefined;
    const name = sym.getName();
    if (name === '__type' || name === '__object') return undefined;
    return name;
  }

  convert(type: ts.Type, depth = 0): Json {
    const c = this.checker;
    const f = type.getFlags();
    if (f & (ts.TypeFlags.Any | ts.TypeFlags.Unknown)) return {};
    if (f & ts.TypeFlags.Never) return { not: {} };
    if (f & ts.TypeFlags.Null) return { type: 'null' };
    if (f & (ts.TypeFlags.Undefined | ts.TypeFlags.Void)) return { type: 'null' };
    if (f & ts.TypeFlags.StringLiteral) return { const: (type as ts.StringLiteralType).value };
    if (f & ts.TypeFlags.NumberLiteral) return { const: (type as ts.NumberLiteralType).value };
    if (f & ts.TypeFlags.BooleanLiteral) return { const: c.typeToString(type) === 'true' };
    if (f & ts.TypeFlags.String || f & ts.TypeFlags.TemplateLiteral) return { type: 'string' };
    if (f & ts.TypeFlags.Number) return { type: 'number' };
    if (f & ts.TypeFlags.Boolean) return { type: 'boolean' };
    if (f & ts.TypeFlags.BigInt) return { type: 'string' };
    // DeepReadonly<X> and Readonly<X> answer what X does: the name of X, once
    const alias = type.aliasSymbol?.getName();
    if ((alias === 'DeepReadonly' || alias === 'Readonly') && type.aliasTypeArguments?.length === 1)
      return this.convert(type.aliasTypeArguments[0], depth);
    if (type.isUnion()) return this.union(type.types, depth);
    if (type.isIntersection()) {
      const parts = type.types.map((t) => this.convert(t, depth + 1));
      if (parts.every((p) => p.type === 'object' && !p.$ref)) return this.object(type, depth);
      return { allOf: parts };
    }
    const name = this.nameOf(type);
    if (name && depth > 0) return this.named(name, type, depth);
    return this.structure(type, depth);
  }

  private named(name: string, type: ts.Type, depth: number): Json {
    const known = this.naming.get(type);
    const key =
      known ??
      (this.defs[name] && !this.naming.has(type)
        ? `${name}${Object.keys(this.defs).filter((k) => k.startsWith(name)).length + 1}`
        : name);
    if (!known) {
      this.naming.set(type, key);
      this.defs[key] = {};
      this.defs[key] = this.structure(type, depth);
    }
    return { $ref: `types.answer.json#/$defs/${key}` };
  }

  private structure(type: ts.Type, depth: number): Json {
    const c = this.checker;
    if (this.stack.has(type) || depth > 14) return {};
    if (c.isArrayType(type) || c.isTupleType(type)) {
      const args = c.getTypeArguments(type as ts.TypeReference);
      if (c.isTupleType(type)) return { type: 'array', prefixItems: args.map((a) => this.convert(a, depth + 1)) };
      return { type: 'array', items: args[0] ? this.convert(args[0], depth + 1) : {} };
    }
    const sym = type.getSymbol();
    if (sym?.getName() === 'Date') return { type: 'string', format: 'date-time' };
    if (sym?.getName() === 'Buffer' || sym?.getName() === 'Uint8Array') return { type: 'object' };
    if (type.getFlags() & ts.TypeFlags.Object) return this.object(type, depth);
    return {};
  }

  private object(type: ts.Type, depth: number): Json {
    const c = this.checker;
    this.stack.add(type);
    try {
      const properties: Json = {};
      const required: string[] = [];
      for (const p of c.getPropertiesOfType(type)) {
        const decl = p.valueDeclaration ?? p.declarations?.[0];
        const pt = decl ? c.getTypeOfSymbolAtLocation(p, decl) : c.getTypeOfSymbol(p);
        // a function, or a property that is only ever absent (`from?: undefined`), is no part of the JSON
        if (pt.getCallSignatures().length || pt.getFlags() & ts.TypeFlags.Undefined) continue;
        const optional = (p.getFlags() & ts.SymbolFlags.Optional) !== 0;
        let schema = this.convert(pt, depth + 1);
        if (optional) schema = dropNull(schema, pt);
        properties[p.getName()] = schema;
        if (!optional && !acceptsUndefined(pt)) required.push(p.getName());
      }
      const out: Json = { type: 'object' };
      if (Object.keys(properties).length) out.properties = properties;
      if (required.length) out.required = required;
      const index = c.getIndexInfosOfType(type)[0];
      if (index) out.additionalProperties = this.convert(index.type, depth + 1);
      return out;
    } finally {
      this.stack.delete(type);
    }
  }

  private union(types: readonly ts.Type[], depth: number): Json {
    const parts = types.filter((t) => !(t.getFlags() & (ts.TypeFlags.Undefined | ts.TypeFlags.Void)));
    const all = parts.map((t) => this.convert(t, depth));
    const consts = all.filter((s) => 'const' in s && Object.keys(s).length === 1);
    const rest = all.filter((s) => !consts.includes(s));
    const out: Json[] = [];
    if (consts.length) {
      const values = consts.map((s) => s.const);
      // true | false
      if (values.length === 2 && values.includes(true) && values.includes(false)) out.push({ type: 'boolean' });
      else out.push(values.length === 1 ? { const: values[0] } : { enum: values });
    }
    out.push(...rest);
    const dedup = [...new Map(out.map((s) => [JSON.stringify(s), s])).values()];
    // X | null with X a plain typed schema: type [X, null]
    const nulls = dedup.filter((s) => s.type === 'null' && Object.keys(s).length === 1);
    const others = dedup.filter((s) => !nulls.includes(s));
    if (nulls.length && others.length === 1) {
      const o = others[0];
      if (typeof o.type === 'string') return { ...o, type: [o.type, 'null'] };
      if (o.enum) return { enum: [...(o.enum as unknown[]), null] };
      if ('const' in o) return { enum: [o.const, null] };
      return { anyOf: [o, { type: 'null' }] };
    }
    if (dedup.length === 1) return dedup[0];
    if (!dedup.length) return { type: 'null' };
    return { anyOf: dedup };
  }
}

function acceptsUndefined(t: ts.Type): boolean {
  if (t.getFlags() & (ts.TypeFlags.Undefined | ts.TypeFlags.Void | ts.TypeFlags.Any | ts.TypeFlags.Unknown))
    return true;
  return t.isUnion() && t.types.some((x) => x.getFlags() & (ts.TypeFlags.Undefined | ts.TypeFlags.Void));
}

/** an optional property may be undefined (absent), which the union converted as null: keep null only when the type has it */
function dropNull(schema: Json, t: ts.Type): Json {
  const hasNull = t.isUnion()
    ? t.types.some((x) => x.getFlags() & ts.TypeFlags.Null)
    : (t.getFlags() & ts.TypeFlags.Null) !== 0;
  if (hasNull) return schema;
  if (Array.isArray(schema.type)) {
    const types = (schema.type as string[]).filter((x) => x !== 'null');
    return { ...schema, type: types.length === 1 ? types[0] : types };
  }
  return schema;
}

/** the method's doc comment (its first paragraph, on one line), if it has one */
function describe(member: ts.MethodDeclaration, classId: string, name: string): string | undefined {
  const doc = ts
    .getJSDocCommentsAndTags(member)
    .filter(ts.isJSDoc)
    .map((d) => (typeof d.comment === 'string' ? d.comment : (d.comment ?? []).map((c) => c.text).join('')))
    .join('\n')
    .split(/\n\s*\n/)[0]
    .replace(/\s+/g, ' ')
    .trim();
  return doc ? `${classId}.${name}: ${doc}` : undefined;
}

/**
 * Object shapes written out more than once across a class's drafts (an
 * anonymous type, such as the approval a gated change answers) become one
 * `$defs` entry, named after the property that holds them.
 */
function hoistRepeated(methods: Record<string, Json>, defs: Record<string, Json>): void {
  const counts = new Map<string, { n: number; key: string }>();
  const visit = (node: unknown, key: string, count: boolean, replace?: Map<string, string>): unknown => {
    if (!node || typeof node !== 'object') return node;
    if (Array.isArray(node)) return node.map((n) => visit(n, key, count, replace));
    const obj = node as Json;
    const text = JSON.stringify(obj);
    if (obj.type === 'object' && Object.keys((obj.properties as Json | undefined) ?? {}).length >= 4) {
      if (count) {
        const c = counts.get(text) ?? { n: 0, key };
        c.n += 1;
        counts.set(text, c);
      } else if (replace?.has(text)) return { $ref: `types.answer.json#/$defs/${replace.get(text)}` };
    }
    const out: Json = {};
    for (const [k, v] of Object.entries(obj))
      out[k] =
        k === 'properties'
          ? Object.fromEntries(Object.entries(v as Json).map(([p, s]) => [p, visit(s, p, count, replace)]))
          : visit(v, key, count, replace);
    return out;
  };
  for (const s of [...Object.values(methods), ...Object.values(defs)]) visit(s, 'answer', true);
  const replace = new Map<string, string>();
  for (const [text, { n, key }] of counts) {
    if (n < 2) continue;
    // a whole answer or an array's item has no property name: named after its first two fields (rename it by hand if need be)
    const cap = (x: string) => x.charAt(0).toUpperCase() + x.slice(1);
    const fields = Object.keys((JSON.parse(text) as Json).properties as Json).slice(0, 2);
    const base = key === 'items' || key === 'answer' ? fields.map(cap).join('') : cap(key);
    let name = base;
    for (let i = 2; defs[name] || [...replace.values()].includes(name); i++) name = `${base}${i}`;
    replace.set(text, name);
  }
  if (!replace.size) return;
  // the hoisted shapes themselves, with the shapes inside them hoisted too
  for (const [text, name] of replace) {
    const inner = new Map([...replace].filter(([t]) => t !== text));
    defs[name] = visit(JSON.parse(text), name, false, inner) as Json;
  }
  for (const [m, s] of Object.entries(methods)) methods[m] = visit(s, 'answer', false, replace) as Json;
  for (const [d, s] of Object.entries(defs))
    if (![...replace.values()].includes(d)) defs[d] = visit(s, d, false, replace) as Json;
}

function main(): void {
  const args = process.argv.slice(2);
  const write = args.includes('--write');
  const only = new Set(args.filter((a) => !a.startsWith('--')));
  const prog = program();
  const checker = prog.getTypeChecker();
  const byClass = new Map<string, { converter: Converter; methods: Record<string, Json> }>();
  for (const sf of prog.getSourceFiles()) {
    if (!sf.fileName.endsWith('.class.ts') || !sf.fileName.startsWith(path.join(ROOT, 'classes'))) continue;
    for (const stmt of sf.statements) {
      if (!ts.isClassDeclaration(stmt)) continue;
      const classDeco = ts
        .getDecorators(stmt)
        ?.find((d) => ts.isCallExpression(d.expression) && d.expression.expression.getText(sf) === 'ActorClass');
      if (!classDeco) continue;
      const arg = (classDeco.expression as ts.CallExpression).arguments[0];
      const idProp =
        arg && ts.isObjectLiteralExpression(arg) ? arg.properties.find((p) => p.name?.getText(sf) === 'id') : undefined;
      const classId =
        idProp && ts.isPropertyAssignment(idProp) ? idProp.initializer.getText(sf).replace(/['"]/g, '') : undefined;
      if (!classId || (only.size && !only.has(classId))) continue;
      const entry = byClass.get(classId) ?? { converter: new Converter(checker), methods: {} };
      byClass.set(classId, entry);
      for (const member of stmt.members) {
        if (!ts.isMethodDeclaration(member)) continue;
        const deco = ts
          .getDecorators(member)
          ?.find((d) => ts.isCallExpression(d.expression) && KINDS.has(d.expression.expression.getText(sf)));
        if (!deco) continue;
        const kind = (deco.expression as ts.CallExpression).expression.getText(sf);
        const optionsText = (deco.expression as ts.CallExpression).arguments[0]?.getText(sf) ?? '';
        if (kind === 'Internal' || kind === 'QueuedWrite' || /\banswer\s*:/.test(optionsText)) continue;
        const name = member.name.getText(sf);
        const sig = checker.getSignatureFromDeclaration(member);
        if (!sig) continue;
        const ret =
          checker.getAwaitedType(checker.getReturnTypeOfSignature(sig)) ?? checker.getReturnTypeOfSignature(sig);
        const schema = entry.converter.convert(ret);
        const fields = Object.keys((schema.properties as Json | undefined) ?? {});
        const fallback = fields.length
          ? `${classId}.${name} answers {${fields.join(', ')}}.`
          : `The answer of ${classId}.${name}.`;
        entry.methods[name] = { description: describe(member, classId, name) ?? fallback, ...schema };
      }
    }
  }
  for (const [classId, { converter, methods }] of byClass) {
    hoistRepeated(methods, converter.defs);
    const dir = path.join(ROOT, 'schemas', classId);
    const wrote: string[] = [];
    for (const [name, schema] of Object.entries(methods)) {
      const file = path.join(dir, `${name}.answer.json`);
      if (fs.existsSync(file)) continue;
      wrote.push(name);
      if (write) fs.writeFileSync(file, JSON.stringify(schema, null, 2) + '\n');
      else console.log(`--- ${classId}/${name}.answer.json\n${JSON.stringify(schema, null, 2)}`);
    }
    if (wrote.length && Object.keys(converter.defs).length) {
      // the shapes already there (perhaps edited by hand) stay: only new names are added
      const file = path.join(dir, 'types.answer.json');
      const existing = fs.existsSync(file)
        ? (JSON.parse(fs.readFileSync(file, 'utf8')) as Json)
        : {
            $comment: `Shapes shared by ${classId}'s answer schemas (drafted from the class's types by scripts/answer-drafts.ts).`,
            $defs: {},
          };
      const defs = existing.$defs as Json;
      for (const [name, schema] of Object.entries(converter.defs)) {
        if (!(name in defs)) defs[name] = schema;
        else if (JSON.stringify(defs[name]) !== JSON.stringify(schema))
          console.error(
            `${classId}: types.answer.json keeps its own '${name}'; the drafts refer to it: check they fit`,
          );
      }
      if (write) fs.writeFileSync(file, JSON.stringify(existing, null, 2) + '\n');
      else console.log(`--- ${classId}/types.answer.json\n${JSON.stringify(existing, null, 2)}`);
    }
    console.error(`${classId}: ${wrote.length} drafts (${wrote.join(', ')})`);
  }
}

main();
