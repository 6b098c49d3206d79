import * as fs from 'node:fs';
import type { Command } from 'commander';
import type { WithRuntime } from '../../runtime';
import { applySeed, type SeedDocument } from './seed';

/** `npm run cli -- seed <file.json>`: load a program as the system actor (see seed.ts). */
export function registerCommands(program: Command, withRuntime: WithRuntime): void {
  program
    .command('seed <file>')
    .description('load company groups, member types and sub types, tier types, companies, tiers and members from a JSON file')
    .action((file: string) =>
      withRuntime(async (rt) => {
        const doc = JSON.parse(fs.readFileSync(file, 'utf8')) as SeedDocument;
        const outcomes = await applySeed(doc, (classId, method, instanceId, body) => rt.call(classId, method, instanceId, body));
        const counts = outcomes.reduce<Record<string, number>>((acc, o) => ({ ...acc, [o.result]: (acc[o.result] ?? 0) + 1 }), {});
        process.stdout.write(`${JSON.stringify({ counts, failed: outcomes.filter((o) => o.result === 'failed') }, null, 2)}\n`);
        if (counts.failed) process.exitCode = 1;
      }),
    );
}
