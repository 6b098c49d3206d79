/**
 * Answer schemas (MethodOptions.answer, errorAnswer): the shape of a method's answer (or of its own error envelope), read
 * from `<schemaDir>/<ClassId>/<name>.json` (or given inline) when the class is
 * registered, with the sibling files it `$ref`s. A method that declares no
 * `answer` has the file `<ClassId>/<method>.answer.json` when there is one (by
 * convention, so a class file need not name it). The OpenAPI document shows
 * them; tests check real answers against them (answerValidator). Nothing on
 * the call path reads them.
 *
 * A file may say what the method's options would otherwise have to:
 * `x-answer-statuses` (e.g. `[201]`, `[204]` for no body, `[303]` for a
 * redirect answering a body too) and `x-answer-content-type` (a download's
 * `application/octet-stream`, a page's `text/html`); the method's own
 * `answerStatuses` takes precedence.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { ValidateFunction } from 'ajv';
import { createAjv } from './validation';
import type { MethodDef } from '../types/classes';

type Json = Record<string, unknown>;

export interface AnswerSchema {
  /** the file name without .json (`getCompany.answer`), or `<method>.answer` for an inline schema */
  name: string;
  /** the schema, without `$schema` and `$id` */
  schema: Json;
  /** the sibling files it refers to (directly or through each other), by file name without .json */
  files: Record<string, Json>;
  /** statuses the answer comes with */
  statuses: number[];
  /** its media type, when not JSON (`x-answer-content-type`) */
  contentType?: string;
}

/** the keywords of an answer file that describe the answer rather than its body */
const STATUSES = 'x-answer-statuses';
const CONTENT_TYPE = 'x-answer-content-type';

/** a `$ref` to a sibling file: `name.json` or `name.json#/pointer` */
const FILE_REF = /^([A-Za-z0-9_.-]+)\.json(#.*)?$/;

/** every `$ref` string of a schema */
function refsOf(node: unknown, out: string[] = []): string[] {
  if (!node || typeof node !== 'object') return out;
  if (Array.isArray(node)) {
    for (const n of node) refsOf(n, out);
    return out;
  }
  for (const [k, v] of Object.entries(node as Json)) {
    if (k === '$ref' && typeof v === 'string') out.push(v);
    else refsOf(v, out);
  }
  return out;
}

function readSchema(file: string): Json {
  const schema = JSON.parse(fs.readFileSync(file, 'utf8')) as Json;
  delete schema.$schema;
  delete schema.$id;
  return schema;
}

/**
 * The method's answer schema, or undefined when it declares none. A named
 * file (or a file it refers to) found in none of the schema directories stops
 * the start, naming it.
 */
export function loadAnswer(
  classId: string,
  m: MethodDef,
  schemaDirs: string[],
  option: 'answer' | 'errorAnswer' = 'answer',
): AnswerSchema | undefined {
  let declared = m.options[option];
  if (declared === undefined && option === 'answer') {
    // the convention: `<method>.answer.json` beside the method's input schema
    const conventional = `${m.name}.answer`;
    if (schemaDirs.some((dir) => fs.existsSync(path.join(dir, classId, `${conventional}.json`))))
      declared = conventional;
  }
  if (declared === undefined) return undefined;
  const find = (name: string, by: string): Json => {
    const files = schemaDirs.map((dir) => path.join(dir, classId, `${name}.json`));
    const file = files.find((f) => fs.existsSync(f));
    if (!file) {
      const looked = files.length
        ? `looked for ${files.join(', ')}`
        : 'no schema directory is configured (SCHEMA_DIRS)';
      throw new Error(
        `${classId}.${m.name}: no ${option === 'answer' ? 'answer' : 'error answer'} schema '${name}' (${by}; ${looked})`,
      );
    }
    return readSchema(file);
  };
  let name: string;
  let schema: Json;
  if (typeof declared === 'string') {
    name = declared;
    schema = find(name, `declared by ${option}`);
  } else if (declared && typeof declared === 'object' && !Array.isArray(declared)) {
    name = `${m.name}.${option === 'answer' ? 'answer' : 'error'}`;
    schema = JSON.parse(JSON.stringify(declared)) as Json;
  } else {
    throw new Error(`${classId}.${m.name}: ${option} must name a schema file or be a JSON Schema object`);
  }
  const fileStatuses = schema[STATUSES];
  const contentType = schema[CONTENT_TYPE];
  delete schema[STATUSES];
  delete schema[CONTENT_TYPE];
  if (
    fileStatuses !== undefined &&
    (!Array.isArray(fileStatuses) ||
      !fileStatuses.length ||
      !fileStatuses.every((s) => Number.isInteger(s) && s >= 200 && s < 400))
  ) {
    throw new Error(`${classId}.${m.name}: ${STATUSES} of '${name}' must list 2xx or 3xx statuses`);
  }
  if (contentType !== undefined && (typeof contentType !== 'string' || !/^[a-z]+\/[a-z0-9.+-]+$/.test(contentType))) {
    throw new Error(`${classId}.${m.name}: ${CONTENT_TYPE} of '${name}' must be a media type`);
  }
  const statuses = [
    ...(m.options.answerStatuses ?? (fileStatuses as number[] | undefined) ?? [m.kind === 'QUEUED_WRITE' ? 202 : 200]),
  ];
  const files: Record<string, Json> = {};
  const pending = [schema];
  while (pending.length) {
    for (const ref of refsOf(pending.pop())) {
      const file = FILE_REF.exec(ref)?.[1];
      if (!file || file in files) continue;
      files[file] = file === name && typeof declared === 'string' ? schema : find(file, `referred to as ${ref}`);
      pending.push(files[file]);
    }
  }
  return { name, schema, files, statuses, ...(contentType ? { contentType: contentType } : {}) };
}

/** the base URI of a class's answer files: a file's relative `$ref`s resolve to its siblings */
const base = (classId: string, name: string) => `https://answers.invalid/${classId}/${name}.json`;

/**
 * An ajv validator of the answer (for tests, never on the call path): the
 * schema with its sibling files, compiled in an ajv instance of its own.
 */
export function answerValidator(classId: string, answer: AnswerSchema): ValidateFunction {
  const ajv = createAjv();
  for (const [file, schema] of Object.entries(answer.files)) {
    if (file !== answer.name) ajv.addSchema({ ...schema, $id: base(classId, file) });
  }
  return ajv.compile({ ...answer.schema, $id: base(classId, answer.name) });
}
