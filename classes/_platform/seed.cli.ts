import * as fs from 'node:fs';
import type { Command } from 'commander';
import { progress, type WithRuntime } from '../../runtime';
import { applySeed, type SeedDocument } from './seed';

/** `npm run cli -- seed <file.json>`: load a program as the system actor (see seed.ts). */
export function registerCommands(program: Command, withRuntime: WithRuntime): void {
  program
    .command('seed <file>')
    .description(
      'load company groups, member types and sub types, tier types, companies, tiers and members from a JSON file',
    )
    .option('--concurrency <n>', 'tiers and members created side by side', '8')
    .action((file: string, opts: { concurrency: string }) =>
      withRuntime(async (rt) => {
        const concurrency = Number(opts.concurrency);
        if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 256) {
          throw new Error(`--concurrency must be an integer from 1 to 256, got '${opts.concurrency}'`);
        }
        const doc = JSON.parse(fs.readFileSync(file, 'utf8')) as SeedDocument;
        // on stderr: stdout keeps the JSON summary
        const bar = progress('seed', { unit: 'records' });
        let outcomes;
        try {
          outcomes = await applySeed(
            doc,
            (classId, method, instanceId, body) => rt.call(classId, method, instanceId, body),
            {
              concurrency,
              onProgress: (done, total) => bar.tick(done, total),
            },
          );
        } finally {
          bar.stop();
        }
        const counts: Record<string, number> = {};
        for (const o of outcomes) counts[o.result] = (counts[o.result] ?? 0) + 1;
        process.stdout.write(
          `${JSON.stringify({ counts, failed: outcomes.filter((o) => o.result === 'failed') }, null, 2)}\n`,
        );
        if (counts.failed) process.exitCode = 1;
      }),
    );
}
