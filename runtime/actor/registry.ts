import * as fs from 'node:fs';
import * as path from 'node:path';
import { loadAnswer, type AnswerSchema } from './answers';
import { budgetSeconds, classDefOf } from './decorators';
import type { ClassDef, MethodDef } from '../types/classes';
import type { DocumentGauge } from '../types/documents';
import type { CatalogueMethod } from '../types/ports';
import { createAjv, lazyValidator, type Validator } from './validation';
import { checkStateVersioning, MIGRATE_STATE_METHOD, migrateStateMethod } from './state-versions';
import { checkJournalName, type MethodJournal } from './journal';
import type { CollectionScope } from '../auth/tenancy';

export interface RegisteredMethod extends MethodDef {
  classId: string;
  validate?: Validator;
  /** the handler's time budget (timeoutSeconds or its kind's default), resolved once here */
  budgetMs: number;
  /** MethodOptions.replayWindowSeconds, resolved against the runtime's settings once here (0: none) */
  replayWindowSeconds: number;
  /** the answer's shape (MethodOptions.answer), for the API reference and tests; never checked on the call path */
  answer?: AnswerSchema;
  /** the shape of its own error envelope (MethodOptions.errorAnswer), for the API reference and tests */
  errorAnswer?: AnswerSchema;
}

export interface RegisteredClass extends ClassDef {
  methodsByName: Map<string, RegisteredMethod>;
  instance: object;
}

function walk(dir: string, out: string[]): void {
  if (!fs.existsSync(dir)) return;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) walk(full, out);
    else if (/\.class\.(ts|js)$/.test(entry.name) && !entry.name.endsWith('.d.ts')) out.push(full);
  }
}

/**
 * The classes a runtime serves: discovered from `*.class.ts` (or `.js`) files
 * under the class folders, each method's input schema compiled from
 * `<schemaDir>/<ClassId>/<schema>.json`.
 */
export class ClassRegistry {
  private readonly classes = new Map<string, RegisteredClass>();
  /** collection → the class projecting it, its tenancy and tenant field */
  private readonly collections = new Map<string, CollectionScope>();
  private readonly ajv = createAjv();
  /** the coercing instance of GET queries, made when a first GET needs it */
  private queryAjv?: ReturnType<typeof createAjv>;
  /** journal name → how its entries are described (MethodOptions.journal); methods sharing a name share its subject and tenant fields */
  private readonly journals = new Map<string, MethodJournal>();

  constructor(
    private readonly schemaDirs: string[],
    private readonly env: NodeJS.ProcessEnv = process.env,
  ) {}

  static fromDirectories(
    classDirs: string[],
    schemaDirs: string[],
    env: NodeJS.ProcessEnv = process.env,
  ): ClassRegistry {
    const registry = new ClassRegistry(schemaDirs, env);
    const files: string[] = [];
    for (const dir of classDirs) walk(dir, files);
    files.sort();
    for (const file of files) {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const mod = require(file) as Record<string, unknown>;
      for (const exported of Object.values(mod)) {
        const def = classDefOf(exported);
        if (def) registry.add(def);
      }
    }
    return registry;
  }

  add(def: ClassDef): void {
    if (this.classes.has(def.id)) throw new Error(`class ${def.id} registered twice`);
    checkStateVersioning(def.id, def.options.state);
    const methodsByName = new Map<string, RegisteredMethod>();
    const methods = [...def.methods.values()];
    if (def.options.state) {
      if (def.methods.has(MIGRATE_STATE_METHOD))
        throw new Error(
          `${def.id}.${MIGRATE_STATE_METHOD}: the name is the runtime's for classes that declare state versions`,
        );
      methods.push(migrateStateMethod(def.id, def.options.state.version));
    }
    for (const m of methods) {
      methodsByName.set(m.name, {
        ...m,
        classId: def.id,
        validate: this.compile(def.id, m),
        budgetMs: budgetSeconds(m.kind, m.options.timeoutSeconds) * 1000,
        replayWindowSeconds: this.replayWindow(def.id, m),
        answer: loadAnswer(def.id, m, this.schemaDirs),
        errorAnswer: loadAnswer(def.id, m, this.schemaDirs, 'errorAnswer'),
      });
    }
    this.registerCollections(def);
    this.registerJournals(def);
    this.classes.set(def.id, { ...def, methodsByName, instance: new def.ctor(this.env) });
  }

  /**
   * Classes whose instances or records belong to tenants must say, for every
   * collection they project, which field names the tenant: otherwise a
   * tenant-bound listing could not be filtered (ClassOptions.tenancy).
   */
  private registerCollections(def: ClassDef): void {
    const tenancy = def.options.tenancy;
    for (const [collection, opts] of Object.entries(def.options.stream?.collections ?? {})) {
      const owner = this.collections.get(collection);
      if (owner) throw new Error(`collection '${collection}' is projected by both ${owner.classId} and ${def.id}`);
      if (tenancy && tenancy.kind !== 'shared' && !opts.tenantField) {
        throw new Error(
          `${def.id}: collection '${collection}' needs a tenantField (the class's tenancy is '${tenancy.kind}')`,
        );
      }
      this.collections.set(collection, { classId: def.id, tenancy, tenantField: opts.tenantField });
      for (const gauge of opts.gauges ?? []) {
        if (!/^[a-z0-9_]{1,64}$/.test(gauge.name))
          throw new Error(
            `${def.id}: collection '${collection}': gauge name '${gauge.name}' must be 1-64 of [a-z0-9_]`,
          );
        if (this.documentGauges.some((g) => g.collection === collection && g.gauge.name === gauge.name)) {
          throw new Error(`${def.id}: collection '${collection}': gauge '${gauge.name}' is declared twice`);
        }
        this.documentGauges.push({ collection, gauge });
      }
    }
  }

  /** the classes' document gauges (CollectionOptions.gauges), for /metrics */
  readonly documentGauges: { collection: string; gauge: DocumentGauge }[] = [];

  private registerJournals(def: ClassDef): void {
    for (const m of def.methods.values()) {
      const j = m.options.journal;
      if (!j) continue;
      const where = `${def.id}.${m.name}: journal`;
      try {
        checkJournalName(j.name);
      } catch (err) {
        throw new Error(`${where}: ${(err as Error).message}`, { cause: err });
      }
      if (m.kind === 'INTERNAL')
        throw new Error(`${where}: only calls that arrive over HTTP are journaled, and an INTERNAL method has none`);
      const known = this.journals.get(j.name);
      if (known && (known.subjectField !== j.subjectField || known.tenantField !== j.tenantField)) {
        throw new Error(`${where} '${j.name}' is kept by another method with another subjectField or tenantField`);
      }
      this.journals.set(j.name, j);
    }
  }

  /** a journal some method keeps, by name */
  journal(name: string): MethodJournal | undefined {
    return this.journals.get(name);
  }

  /** every projected collection's name */
  collectionNames(): string[] {
    return [...this.collections.keys()];
  }

  /** the class, tenancy and tenant field of a projected collection */
  collectionScope(collection: string): CollectionScope | undefined {
    return this.collections.get(collection);
  }

  /**
   * The method's input validator, from `<schemaDir>/<ClassId>/<schema or method name>.json`.
   * A method without one must say so (`schema: false`): a missing file stops
   * the start instead of leaving the method's input unchecked.
   */
  private compile(classId: string, m: MethodDef): Validator | undefined {
    if (m.options.schema === false) return undefined;
    const name = m.options.schema ?? m.name;
    const files = this.schemaDirs.map((dir) => path.join(dir, classId, `${name}.json`));
    for (const file of files) {
      if (fs.existsSync(file)) {
        const schema = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;
        delete schema.$id; // one ajv instance: ids need not be globally unique
        return lazyValidator(
          this.ajv,
          schema,
          `${classId}.${m.name} (${file})`,
          () => (this.queryAjv ??= createAjv(true)),
        );
      }
    }
    const looked = files.length ? `looked for ${files.join(', ')}` : 'no schema directory is configured (SCHEMA_DIRS)';
    throw new Error(
      `${classId}.${m.name}: no input schema (${looked}); add the JSON Schema, or declare schema: false on the method`,
    );
  }

  /** a method's replay window in seconds: the option's number, or what its function makes of the settings (0: none) */
  private replayWindow(classId: string, m: MethodDef): number {
    const w = m.options.replayWindowSeconds;
    if (w === undefined) return 0;
    const seconds = typeof w === 'function' ? w(this.env) : w;
    if (!Number.isInteger(seconds) || seconds < 0 || seconds > 86_400) {
      throw new Error(
        `${classId}.${m.name}: replayWindowSeconds must come to an integer from 0 to 86400, got ${String(seconds)}`,
      );
    }
    return seconds;
  }

  /** compiles every method's input schema now (each is compiled on its first call otherwise): a schema ajv cannot compile throws, naming the method */
  compileAll(): void {
    for (const c of this.classes.values()) {
      for (const m of c.methodsByName.values()) {
        try {
          m.validate?.compile();
        } catch (err) {
          throw new Error(`${c.id}.${m.name}: its input schema does not compile: ${(err as Error).message}`, {
            cause: err,
          });
        }
      }
    }
  }

  get(classId: string): RegisteredClass | undefined {
    return this.classes.get(classId);
  }

  list(): RegisteredClass[] {
    return [...this.classes.values()];
  }

  /** class id → method names callable from outside (the permission catalogue) */
  catalogue(): Record<string, CatalogueMethod[]> {
    const out: Record<string, CatalogueMethod[]> = {};
    for (const c of this.classes.values()) {
      out[c.id] = [...c.methodsByName.values()].map((m) => ({
        name: m.name,
        kind: m.kind,
        access: [...m.options.access],
      }));
    }
    return out;
  }
}
