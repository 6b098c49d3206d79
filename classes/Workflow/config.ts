/**
 * Workflow rule files: `<dir>/<ClassId>.json`, validated against
 * schemas/Workflow/config.json when the Workflow class starts. A broken file
 * stops the start with an error naming the file.
 *
 * Directories: WORKFLOW_CONFIG_DIR, comma-separated, relative to the
 * repository root (default `workflow-configs`). Only `*.json` files directly in
 * each directory are read; a class configured in two directories is an error.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import configSchema from '../../schemas/Workflow/config.json';
import { projectRoot } from '../../runtime';
import type { WorkflowConfig } from './types';

export interface LoadedConfig {
  config: WorkflowConfig;
  file: string;
}

/** the repository root (rule file folders are relative to it) */
export const repoRoot = projectRoot;

const ajv = new Ajv({ allErrors: true, strict: false, coerceTypes: false, useDefaults: false });
addFormats(ajv);
const { $comment: _comment, ...schema } = configSchema as Record<string, unknown>;
const validateSchema = ajv.compile(schema);

/** Problems of a configuration object, as `path reason` strings (empty when valid). */
export function configProblems(value: unknown): string[] {
  if (validateSchema(value)) return [];
  return (validateSchema.errors ?? []).map((e) => {
    const where = e.instancePath || '(root)';
    if (e.keyword === 'additionalProperties')
      return `${where}: property '${(e.params as { additionalProperty: string }).additionalProperty}' is not allowed`;
    if (e.keyword === 'required')
      return `${where}: '${(e.params as { missingProperty: string }).missingProperty}' is required`;
    return `${where}: ${e.message}`;
  });
}

export function workflowConfigDirs(env: NodeJS.ProcessEnv = process.env): string[] {
  const raw = env.WORKFLOW_CONFIG_DIR || 'workflow-configs';
  const root = repoRoot();
  return raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((d) => path.resolve(root, d));
}

/** Read and validate every rule file of `dirs`; throws, naming the file, on the first broken one. */
export function loadWorkflowConfigs(dirs: string[]): Map<string, LoadedConfig> {
  const out = new Map<string, LoadedConfig>();
  for (const dir of dirs) {
    if (!fs.existsSync(dir) || !fs.statSync(dir).isDirectory()) {
      throw new Error(`Workflow config directory ${dir} does not exist (WORKFLOW_CONFIG_DIR)`);
    }
    const files = fs
      .readdirSync(dir, { withFileTypes: true })
      .filter((e) => e.isFile() && e.name.endsWith('.json'))
      .map((e) => e.name)
      .sort();
    for (const name of files) {
      const file = path.join(dir, name);
      let parsed: unknown;
      try {
        parsed = JSON.parse(fs.readFileSync(file, 'utf8'));
      } catch (err) {
        throw new Error(`Workflow config ${file}: not valid JSON: ${(err as Error).message}`, { cause: err });
      }
      const problems = configProblems(parsed);
      if (problems.length) throw new Error(`Workflow config ${file} is invalid: ${problems.join('; ')}`);
      const config = parsed as WorkflowConfig;
      const expected = name.slice(0, -'.json'.length);
      if (config.classId !== expected) {
        throw new Error(
          `Workflow config ${file}: classId '${config.classId}' must match the file name ('${expected}')`,
        );
      }
      const before = out.get(config.classId);
      if (before)
        throw new Error(`Workflow config for class ${config.classId} is defined twice: ${before.file} and ${file}`);
      out.set(config.classId, { config, file });
    }
  }
  return out;
}
