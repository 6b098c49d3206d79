/**
 * Progress of long CLI commands: on stderr, so that stdout
 * keeps the JSON answer; without a terminal, a line every few seconds and one
 * at the end.
 */
import { execFile } from 'node:child_process';
import * as path from 'node:path';
import { PassThrough } from 'node:stream';
import { promisify } from 'node:util';
import { progress } from '../../runtime/cli-progress';
import { projectRoot } from '../../runtime/config';
import { testEnv } from '../support/harness';
import { uniqueProjectId } from '../support/redis';

const run = promisify(execFile);

function captured(): { stream: NodeJS.WriteStream; text: () => string } {
  const stream = new PassThrough();
  let text = '';
  stream.on('data', (c) => (text += c));
  return { stream: stream as unknown as NodeJS.WriteStream, text: () => text };
}

test('without a terminal: a line when the interval has passed, none before, and a closing line with the total', () => {
  const quiet = captured();
  const slow = progress('seed', { unit: 'records', stream: quiet.stream, everyMs: 60_000 });
  slow.tick(0, 10);
  slow.tick(4, 10);
  expect(quiet.text()).toBe('');
  slow.tick(10, 10);
  slow.stop();
  expect(quiet.text()).toBe('seed: 10/10 records done\n');

  const chatty = captured();
  const every = progress('reproject', { unit: 'instances', stream: chatty.stream, everyMs: 0 });
  every.tick(3);
  every.stop();
  expect(chatty.text().split('\n')).toEqual([
    expect.stringMatching(/^reproject: 3 instances, \d+ instances\/s$/),
    'reproject: 3 instances done',
    '',
  ]);
});

test('cli seed shows its progress on stderr and keeps stdout for the JSON summary', async () => {
  const projectId = uniqueProjectId('sp');
  const { stdout, stderr } = await run(
    process.execPath,
    [
      '--import',
      'tsx',
      path.join(projectRoot(), 'runtime/cli.ts'),
      'seed',
      path.join(projectRoot(), 'examples/seed.json'),
    ],
    {
      cwd: projectRoot(),
      env: {
        ...process.env,
        ...testEnv(projectId, { CLASS_DIRS: 'classes', SCHEMA_DIRS: 'schemas', LOG_LEVEL: 'warn' }),
      },
    },
  );
  expect(JSON.parse(stdout)).toEqual({ counts: { created: 14 }, failed: [] });
  expect(stderr).toContain('seed: 14/14 records done');
}, 120_000);
