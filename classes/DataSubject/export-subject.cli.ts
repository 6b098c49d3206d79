/**
 * `npm run cli -- export-subject <subjectType> <subjectId> <file.zip> [--dependants]`:
 * the same archive exportSubject answers over HTTP, written to a file (created
 * with mode 0600, never over an existing one), as the system actor named after
 * the command. The export is audit-logged like one made over HTTP. Prints
 * `{exportId, file, bytes, sha256}`.
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import type { Command } from 'commander';
import type { WithRuntime } from '../../runtime';
import { SUBJECT_TYPES, type SubjectType } from '../_platform/personal-data';

export function registerCommands(program: Command, withRuntime: WithRuntime): void {
  program
    .command('export-subject <subjectType> <subjectId> <file>')
    .description(
      `write everything held on one person to a ZIP archive (subjectType: ${SUBJECT_TYPES.join(', ')}); see classes/DataSubject/README.md`,
    )
    .option('--dependants', "a member's dependants too")
    .action((subjectType: string, subjectId: string, file: string, opts: { dependants?: boolean }) => {
      if (!(SUBJECT_TYPES as readonly string[]).includes(subjectType)) {
        throw new Error(`subjectType must be one of ${SUBJECT_TYPES.join(', ')}, got '${subjectType}'`);
      }
      if (fs.existsSync(file)) throw new Error(`${file} exists: an export is never written over another file`);
      return withRuntime(async (rt) => {
        const identity = { type: 'system' as const, userId: 'export-subject', claims: { name: 'export-subject' } };
        const body = { subjectType: subjectType as SubjectType, subjectId, includeDependants: !!opts.dependants };
        const answer = await rt.call('DataSubject', 'exportSubject', undefined, body, { identity });
        const archive = answer.body as Buffer;
        fs.writeFileSync(file, archive, { flag: 'wx', mode: 0o600 });
        const summary = {
          exportId: answer.headers['x-export-id'],
          file,
          bytes: archive.length,
          sha256: createHash('sha256').update(archive).digest('hex'),
        };
        process.stdout.write(`${JSON.stringify(summary)}\n`);
      });
    });
}
