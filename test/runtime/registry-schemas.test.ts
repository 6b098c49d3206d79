/**
 * Every method has an input schema or says it has none: the
 * registry compiles `<schemaDir>/<Class>/<schema or method name>.json`, and a
 * method with no such file that does not declare `schema: false` stops the
 * start with a message naming the file(s) it looked for.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ActorClass, Read, Write, type Ctx } from '../../runtime';
import { classDefOf } from '../../runtime/actor/decorators';
import { ClassRegistry } from '../../runtime/actor/registry';
import { startTestRuntime } from '../support/harness';

@ActorClass({ id: 'Widget' })
class Widget {
  @Write({ access: ['class'] })
  paint(ctx: Ctx) {
    return ctx.request.body;
  }
}

@ActorClass({ id: 'Widget' })
class WidgetNamedSchema {
  @Write({ access: ['class'], schema: 'colour' })
  paint(ctx: Ctx) {
    return ctx.request.body;
  }
}

@ActorClass({ id: 'Widget' })
class WidgetWithoutSchema {
  // schema: false: this fixture reads no input
  @Read({ access: ['class'], schema: false })
  look() {
    return { ok: true };
  }
}

let dir: string;
let schemas: string;
let other: string;

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'registry-schemas-'));
  schemas = path.join(dir, 'schemas');
  other = path.join(dir, 'more-schemas');
  fs.mkdirSync(path.join(schemas, 'Widget'), { recursive: true });
  fs.mkdirSync(other);
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function register(cls: unknown, schemaDirs: string[]): ClassRegistry {
  const registry = new ClassRegistry(schemaDirs, {});
  registry.add(classDefOf(cls)!);
  return registry;
}

describe('ClassRegistry: a method without a schema file', () => {
  it('is refused, naming the file looked for in each schema directory', () => {
    const expected = `Widget.paint: no input schema (looked for ${path.join(schemas, 'Widget', 'paint.json')}, ${path.join(other, 'Widget', 'paint.json')})`;
    expect(() => register(Widget, [schemas, other])).toThrow(expected);
    expect(() => register(Widget, [schemas])).toThrow(/declare schema: false/);
  });

  it('is refused when a named schema is missing, naming that file', () => {
    expect(() => register(WidgetNamedSchema, [schemas])).toThrow(
      `Widget.paint: no input schema (looked for ${path.join(schemas, 'Widget', 'colour.json')})`,
    );
  });

  it('is refused when no schema directory is configured', () => {
    expect(() => register(Widget, [])).toThrow(
      'Widget.paint: no input schema (no schema directory is configured (SCHEMA_DIRS))',
    );
  });

  it('is accepted with schema: false, and gets no validator', () => {
    const registry = register(WidgetWithoutSchema, []);
    expect(registry.get('Widget')!.methodsByName.get('look')!.validate).toBeUndefined();
  });

  it('with the file present, the method validates its input against it', () => {
    const schema = { type: 'object', properties: { colour: { type: 'string' } }, additionalProperties: false };
    fs.writeFileSync(path.join(schemas, 'Widget', 'paint.json'), JSON.stringify(schema));
    try {
      const validate = register(Widget, [other, schemas]).get('Widget')!.methodsByName.get('paint')!.validate!;
      expect(validate({ colour: 'red' })).toBe(true);
      expect(validate({ colour: 'red', size: 3 })).toBe(false);
    } finally {
      fs.rmSync(path.join(schemas, 'Widget', 'paint.json'));
    }
  });
});

describe('input schemas are compiled on first use, and checked at registration', () => {
  const file = () => path.join(schemas, 'Widget', 'paint.json');
  afterEach(() => fs.rmSync(file(), { force: true }));

  it('a schema that is not a JSON Schema stops the registration, naming the method and the file', () => {
    fs.writeFileSync(file(), JSON.stringify({ type: 'objekt' }));
    expect(() => register(Widget, [schemas])).toThrow(`Widget.paint (${file()}): invalid JSON Schema`);
  });

  it('a schema ajv cannot compile (an unresolvable $ref) is named by compileAll', () => {
    fs.writeFileSync(file(), JSON.stringify({ type: 'object', properties: { colour: { $ref: '#/$defs/missing' } } }));
    const registry = register(Widget, [schemas]);
    expect(() => registry.compileAll()).toThrow(/^Widget\.paint: its input schema does not compile: .*missing/);
  });

  it('the validator reports the errors of its last call', () => {
    fs.writeFileSync(
      file(),
      JSON.stringify({ type: 'object', required: ['colour'], properties: { colour: { type: 'string' } } }),
    );
    const validate = register(Widget, [schemas]).get('Widget')!.methodsByName.get('paint')!.validate!;
    expect(validate.schema).toMatchObject({ required: ['colour'] });
    expect(validate({})).toBe(false);
    expect(validate.errors).toEqual([expect.objectContaining({ keyword: 'required' })]);
    expect(validate({ colour: 'red' })).toBe(true);
    expect(validate.errors).toBeNull();
  });

  it("every method of the service's own classes has an input schema that compiles", () => {
    const root = path.resolve(__dirname, '../..');
    const registry = ClassRegistry.fromDirectories([path.join(root, 'classes')], [path.join(root, 'schemas')], {});
    const withSchema = registry.list().flatMap((c) => [...c.methodsByName.values()].filter((m) => m.validate));
    expect(withSchema.length).toBeGreaterThan(150);
    expect(() => registry.compileAll()).not.toThrow();
  });
});

describe('a runtime whose class lacks a schema file', () => {
  it('does not start, and says which file it looked for', async () => {
    const classes = path.join(dir, 'classes');
    fs.mkdirSync(path.join(classes, 'Sprocket'), { recursive: true });
    const runtimeIndex = path.resolve(__dirname, '../../runtime');
    fs.writeFileSync(
      path.join(classes, 'Sprocket', 'Sprocket.class.ts'),
      [
        `import { ActorClass, Read, type Ctx } from ${JSON.stringify(runtimeIndex)};`,
        `@ActorClass({ id: 'Sprocket' })`,
        `export class Sprocket {`,
        `  @Read({ access: ['class'] })`,
        `  spin(ctx: Ctx) { return { id: ctx.instanceId }; }`,
        `}`,
        ``,
      ].join('\n'),
    );
    const start = startTestRuntime({ env: { CLASS_DIRS: classes, SCHEMA_DIRS: schemas } });
    await expect(start).rejects.toThrow(
      `Sprocket.spin: no input schema (looked for ${path.join(schemas, 'Sprocket', 'spin.json')})`,
    );
  });
});

describe('method options that fit one kind only stop the declaration', () => {
  test('emptyWhenMissing on a write, optimistic on a READ, a guard that is no function', () => {
    expect(() => {
      @ActorClass({ id: 'Misfit' })
      class Misfit {
        @Write({ access: ['class'], schema: false, emptyWhenMissing: true })
        paint() {
          return null;
        }
      }
      return Misfit;
    }).toThrow('method paint: emptyWhenMissing is for READ methods (a write creates with upsert: true)');
    expect(() => {
      @ActorClass({ id: 'Misfit' })
      class Misfit {
        @Read({ access: ['class'], schema: false, optimistic: false })
        look() {
          return null;
        }
      }
      return Misfit;
    }).toThrow('method look: optimistic is for WRITE and INTERNAL methods');
    expect(() => {
      @ActorClass({ id: 'Misfit' })
      class Misfit {
        @Read({ access: ['class'], schema: false, guard: 'self' as never })
        look() {
          return null;
        }
      }
      return Misfit;
    }).toThrow('method look: guard must be a function');
  });
});

describe('document gauges (CollectionOptions.gauges) are checked at registration', () => {
  const withGauges = (gauges: { name: string; help: string; filter: Record<string, unknown> }[]) => {
    @ActorClass({ id: 'Gauged', stream: { collections: { gauged: { gauges } }, toDocuments: () => [] } })
    class Gauged {
      @Read({ access: ['class'], schema: false })
      look() {
        return {};
      }
    }
    return Gauged;
  };

  test('listed for /metrics by collection; a bad name or a name twice stops the registration', () => {
    const ok = register(withGauges([{ name: 'waiting_review', help: 'x', filter: { waiting: true } }]), [schemas]);
    expect(ok.documentGauges).toEqual([
      { collection: 'gauged', gauge: { name: 'waiting_review', help: 'x', filter: { waiting: true } } },
    ]);
    expect(() => register(withGauges([{ name: 'Waiting-Review', help: 'x', filter: {} }]), [schemas])).toThrow(
      /gauge name 'Waiting-Review' must be 1-64 of \[a-z0-9_\]/,
    );
    expect(() =>
      register(
        withGauges([
          { name: 'twice', help: 'x', filter: {} },
          { name: 'twice', help: 'y', filter: {} },
        ]),
        [schemas],
      ),
    ).toThrow(/gauge 'twice' is declared twice/);
  });
});
